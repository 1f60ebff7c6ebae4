package io.rdmakv.server.config;

import io.rdmakv.server.admission.AdmissionSettings;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.WalRecovery;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import static io.rdmakv.server.config.SettingValues.booleanSetting;
import static io.rdmakv.server.config.SettingValues.enumSetting;
import static io.rdmakv.server.config.SettingValues.intSetting;
import static io.rdmakv.server.config.SettingValues.sizeSetting;
import static io.rdmakv.server.config.SettingValues.upper;

/**
 * Settings of one server node: read from a properties file, overridden by command-line flags, validated once.
 * Every setting has a default that runs out of the box on a laptop; {@link #KNOWN} lists them with their defaults and
 * {@link SettingsReference} with their meanings ({@code rdmakv server --list-settings}, and the generated page
 * {@code docs/settings.md}, which a test keeps equal to the code). Sizes follow {@link #parseSize}.
 * Cluster settings ({@code cluster.*}): see {@link ClusterSettings}; the listen and advertised addresses: see
 * {@code NodeAddresses}; how one value is read and checked: {@code SettingValues}.
 */
public final class ServerConfig
{
    public static final int DEFAULT_CONTROL_PORT = 7400;
    public static final int DEFAULT_DATA_PORT = 7401;
    /** Longest key the on-pool format accepts. */
    public static final int FORMAT_MAX_KEY_BYTES = 1024;
    /** Largest extent (2 MiB - 64 B) minus its 24-byte header: key + value must fit in it. */
    public static final int FORMAT_MAX_KEY_PLUS_VALUE = (2 << 20) - 64 - 24;
    /** Data-plane bytes beyond key + value: message header and request fields, with room to spare. */
    public static final int MESSAGE_OVERHEAD_BYTES = 256;
    /** The transport's own default credits per endpoint ({@code TransportConfig}); this package cannot see it. */
    public static final int DEFAULT_MAX_INFLIGHT_PER_ENDPOINT = 128;
    /** Most credits per endpoint: the deepest verbs send/receive queue the transport accepts. */
    public static final int MAX_INFLIGHT_PER_ENDPOINT = 16_384;

    /** Every accepted setting and its default ({@code null}: no default or derived). */
    public static final Map<String, String> KNOWN;

    static
    {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("node.id", "1");
        m.put("data.dir", "./data");
        m.put("durability", "DEFAULT");
        m.put("replication.timeoutMs", "1000");
        m.put("replication.ackPollMicros", "0");
        m.put("store.writeBufferSize", "8MiB");
        m.put("store.walRecovery", WalRecovery.TOLERATE_TAIL.setting());
        m.put("store.diskReserve", "64MiB");
        m.put("pool.size", "64MiB");
        m.put("pool.partitionSize", "1GiB");
        m.put("pool.pin", "AUTO");
        m.put("pool.hugePages", "NONE");
        m.put("pool.reclaimGraceMs", "100");
        m.put("pool.scribbleRetired", "false");
        m.put("index.avgEntryBytes", "224");
        m.put("transport", "auto");
        m.put("transport.serveShm", ShmServing.AUTO.setting());
        m.put("transport.maxInflightPerEndpoint", String.valueOf(DEFAULT_MAX_INFLIGHT_PER_ENDPOINT));
        m.put("host", "0.0.0.0");
        m.put("advertised.host", null);
        m.put("advertised.controlPort", null);
        m.put("advertised.dataPort", null);
        m.put("control.port", String.valueOf(DEFAULT_CONTROL_PORT));
        m.put("data.port", String.valueOf(DEFAULT_DATA_PORT));
        m.put("data.tcpPort", "0");
        m.put("data.shmPort", "0");
        m.put("advertised.tcpPort", null);
        m.put("control.maxFrameBytes", "65536");
        m.put("limits.maxKeyBytes", "1024");
        m.put("limits.maxValueBytes", String.valueOf(1 << 20));
        m.put("limits.maxMessageBytes", null);
        m.put("limits.maxConnections", "1024");
        m.put("limits.maxUnauthenticated", "1024");
        m.put("limits.maxUnauthenticatedPerSource", "64");
        m.put("auth.handshakeTimeoutMs", "5000");
        m.put("auth.failedCredentialBurst", "10");
        m.put("auth.failedCredentialIntervalMs", "1000");
        m.put("auth.ticketTtlMs", "30000");
        m.put("cluster.nodes", null);
        m.put("metrics.port", "0");
        m.putAll(ClusterSettings.DEFAULTS);
        m.putAll(RespPortSettings.DEFAULTS);
        m.putAll(SecuritySettings.DEFAULTS);
        KNOWN = java.util.Collections.unmodifiableMap(m);
    }

    private final int nodeId;
    private final Path dataDir;
    private final Durability durability;
    private final long replicationTimeoutMillis;
    private final long replicationAckPollMicros;
    private final long writeBufferSize;
    private final WalRecovery walRecovery;
    private final long diskReserve;
    private final long poolSize;
    private final long poolPartitionSize;
    private final PinMode pinMode;
    private final String hugePages;
    private final long reclaimGraceMillis;
    private final boolean scribbleRetired;
    private final int indexAvgEntryBytes;
    private final String transport;
    private final int maxInflightPerEndpoint;
    private final NodeAddresses addresses;
    private final ShmServing serveShm;
    private final int maxControlFrameBytes;
    private final int maxKeyBytes;
    private final int maxValueBytes;
    private final int maxMessageBytes;
    private final int maxConnections;
    private final SecuritySettings security;
    private final long ticketTtlMillis;
    private final AdmissionSettings admission;
    private final List<ClusterNode> clusterNodes;
    private final ClusterSettings cluster;
    private final Map<String, String> transportProperties;
    private final int metricsPort;
    private final RespPortSettings resp;
    /** The settings as given (defaults + file + flags), so {@link #with} re-derives what was derived. */
    private final Map<String, String> given;

    ServerConfig(final Map<String, String> s)
    {
        given = java.util.Collections.unmodifiableMap(new TreeMap<>(s));
        nodeId = intSetting(s, "node.id", 0, Integer.MAX_VALUE);
        dataDir = Path.of(s.get("data.dir"));
        durability = enumSetting(s, "durability", () -> Durability.parse(s.get("durability")));
        replicationTimeoutMillis = intSetting(s, "replication.timeoutMs", 1, 600_000);
        replicationAckPollMicros = intSetting(s, "replication.ackPollMicros", 0, 10_000);
        writeBufferSize = sizeSetting(s, "store.writeBufferSize", 1L << 20, 1L << 30);
        walRecovery = enumSetting(s, "store.walRecovery", () -> WalRecovery.parse(s.get("store.walRecovery")));
        // RocksDB's resume after a full disk flushes the memtable into the space the reserve frees.
        final long reserve = sizeSetting(s, "store.diskReserve", 0, 1L << 40);
        diskReserve = reserve == 0 ? 0 : Math.max(reserve, writeBufferSize);
        poolSize = sizeSetting(s, "pool.size", 1L << 20, 1L << 40);
        if ((poolSize & 4095) != 0)
        {
            throw new ConfigException("pool.size must be a multiple of 4096 bytes (a page): " + poolSize);
        }
        poolPartitionSize = sizeSetting(s, "pool.partitionSize", 1L << 16, 1L << 30);
        if (Long.bitCount(poolPartitionSize) != 1)
        {
            throw new ConfigException("pool.partitionSize must be a power of two: " + poolPartitionSize);
        }
        pinMode = enumSetting(s, "pool.pin", () -> PinMode.valueOf(upper(s.get("pool.pin"))));
        hugePages = upper(s.get("pool.hugePages"));
        if (!List.of("NONE", "TRANSPARENT", "EXPLICIT").contains(hugePages))
        {
            throw new ConfigException("pool.hugePages must be NONE, TRANSPARENT or EXPLICIT: " +
                s.get("pool.hugePages"));
        }
        reclaimGraceMillis = intSetting(s, "pool.reclaimGraceMs", 0, 3_600_000);
        scribbleRetired = booleanSetting(s, "pool.scribbleRetired");
        indexAvgEntryBytes = intSetting(s, "index.avgEntryBytes", 64, FORMAT_MAX_KEY_PLUS_VALUE);
        transport = s.get("transport").trim().toLowerCase(Locale.ROOT);
        maxInflightPerEndpoint = intSetting(s, "transport.maxInflightPerEndpoint", 1, MAX_INFLIGHT_PER_ENDPOINT);
        addresses = new NodeAddresses(s);
        // The handshake codec never accepts more than 64 KiB, so a larger setting would only be misleading.
        maxControlFrameBytes = intSetting(s, "control.maxFrameBytes", 256, 1 << 16);
        maxKeyBytes = intSetting(s, "limits.maxKeyBytes", 1, FORMAT_MAX_KEY_BYTES);
        maxValueBytes = intSetting(s, "limits.maxValueBytes", 0, FORMAT_MAX_KEY_PLUS_VALUE - maxKeyBytes);
        final String mm = s.get("limits.maxMessageBytes");
        maxMessageBytes = mm == null ? maxKeyBytes + maxValueBytes + MESSAGE_OVERHEAD_BYTES :
            intSetting(s, "limits.maxMessageBytes", maxKeyBytes + maxValueBytes + MESSAGE_OVERHEAD_BYTES,
                Integer.MAX_VALUE);
        maxConnections = intSetting(s, "limits.maxConnections", 1, 1_000_000);
        security = new SecuritySettings(s);
        ticketTtlMillis = intSetting(s, "auth.ticketTtlMs", 1, 3_600_000);
        admission = new AdmissionSettings(intSetting(s, "limits.maxUnauthenticated", 1, 1_000_000),
            intSetting(s, "limits.maxUnauthenticatedPerSource", 1, 1_000_000),
            Duration.ofMillis(intSetting(s, "auth.handshakeTimeoutMs", 1, 3_600_000)),
            intSetting(s, "auth.failedCredentialBurst", 1, 1_000_000),
            Duration.ofMillis(intSetting(s, "auth.failedCredentialIntervalMs", 1, 3_600_000)));
        serveShm = enumSetting(s, "transport.serveShm", () -> ShmServing.parse(s.get("transport.serveShm")));
        final String nodes = s.get("cluster.nodes");
        if (nodes == null || nodes.isBlank())
        {
            clusterNodes = List.of(new ClusterNode(nodeId, addresses.advertisedHost(),
                addresses.advertisedControlPort(addresses.controlPort()), 0, ClusterNode.HASH_SLOT_COUNT - 1));
        }
        else
        {
            clusterNodes = ClusterNode.parseList(nodes);
            if (clusterNodes.stream().noneMatch(n -> n.nodeId() == nodeId))
            {
                throw new ConfigException("cluster.nodes does not contain this node (node.id=" + nodeId + ")");
            }
        }
        cluster = ClusterSettings.parse(s, dataDir);
        if (cluster.enabled() && nodes != null && !nodes.isBlank())
        {
            throw new ConfigException("cluster.voters and cluster.nodes exclude each other: a replicated cluster's " +
                "slot map is decided by its voters, not configured");
        }
        final Map<String, String> tp = new TreeMap<>();
        s.forEach((k, v) ->
        {
            if (SettingValues.isTransportProperty(k))
            {
                tp.put(k, v);
            }
        });
        transportProperties = java.util.Collections.unmodifiableMap(tp);
        metricsPort = intSetting(s, "metrics.port", 0, 65_535);
        resp = RespPortSettings.parse(s);
    }

    /** All defaults. */
    public static ServerConfig defaults()
    {
        return from(new Properties(), Map.of());
    }

    /** Typed construction, every setting at its default until set (embedding; see {@link ServerConfigBuilder}). */
    public static ServerConfigBuilder builder()
    {
        return new ServerConfigBuilder();
    }

    /**
     * Build from file settings overridden by flag settings (both by setting name, see {@link #KNOWN}).
     *
     * @throws ConfigException for an unknown setting name or an invalid value.
     */
    public static ServerConfig from(final Properties file, final Map<String, String> overrides)
    {
        final ServerConfigBuilder builder = builder();
        for (final String name : file.stringPropertyNames())
        {
            builder.set(name, file.getProperty(name));
        }
        overrides.forEach(builder::set);
        return builder.build();
    }

    /** A builder holding this configuration's settings as given, to change some (typed {@link #with}). */
    public ServerConfigBuilder toBuilder()
    {
        final ServerConfigBuilder builder = builder();
        given.forEach(builder::set);
        return builder;
    }

    /** Read a properties file (UTF-8) and apply {@code overrides}. */
    public static ServerConfig load(final Path file, final Map<String, String> overrides)
    {
        final Properties p = new Properties();
        if (file != null)
        {
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8))
            {
                p.load(r);
            }
            catch (final IOException ex)
            {
                throw new ConfigException("cannot read config file " + file.toAbsolutePath() + ": " + ex.getMessage(),
                    ex);
            }
        }
        return from(p, overrides);
    }

    /** A copy with some settings replaced (tests, embedding). */
    public ServerConfig with(final Map<String, String> overrides)
    {
        final Properties p = new Properties();
        toSettings().forEach(p::setProperty);
        return from(p, overrides);
    }

    private Map<String, String> toSettings()
    {
        return new TreeMap<>(given);
    }

    public int nodeId()
    {
        return nodeId;
    }

    public Path dataDir()
    {
        return dataDir;
    }

    public Durability durability()
    {
        return durability;
    }

    /** How long a primary waits for a backup's acknowledgement ({@code replication.timeoutMs}). */
    public long replicationTimeoutMillis()
    {
        return replicationTimeoutMillis;
    }

    /** How long a primary polls for a backup's acknowledgement before it sleeps ({@code replication.ackPollMicros}). */
    public long replicationAckPollMicros()
    {
        return replicationAckPollMicros;
    }

    /** RocksDB's memtable size in bytes ({@code store.writeBufferSize}). */
    public long writeBufferSize()
    {
        return writeBufferSize;
    }

    /** What the store does with a damaged write-ahead log ({@code store.walRecovery}). */
    public WalRecovery walRecovery()
    {
        return walRecovery;
    }

    /**
     * Bytes of the reserve file released when the disk is full ({@code store.diskReserve}, raised to the memtable
     * size when smaller); 0 = none.
     */
    public long diskReserve()
    {
        return diskReserve;
    }

    public long poolSize()
    {
        return poolSize;
    }

    public long poolPartitionSize()
    {
        return poolPartitionSize;
    }

    public PinMode pinMode()
    {
        return pinMode;
    }

    /** NONE, TRANSPARENT or EXPLICIT. */
    public String hugePages()
    {
        return hugePages;
    }

    public long reclaimGraceMillis()
    {
        return reclaimGraceMillis;
    }

    /** Test/debug: overwrite each superseded extent at once (see {@code PoolIndex#scribbleRetired}). */
    public boolean scribbleRetired()
    {
        return scribbleRetired;
    }

    public int indexAvgEntryBytes()
    {
        return indexAvgEntryBytes;
    }

    public String transport()
    {
        return transport;
    }

    /** Credits per data endpoint, for the transport's typed {@code maxInflightPerEndpoint}. */
    public int maxInflightPerEndpoint()
    {
        return maxInflightPerEndpoint;
    }

    public String host()
    {
        return addresses.host();
    }

    public String advertisedHost()
    {
        return addresses.advertisedHost();
    }

    /**
     * Why {@link #advertisedHost()}: {@code advertised.host}, the bind address, or, for a wildcard bind, which
     * interface address was picked among which (never a loopback one: a wildcard node with none refuses to start).
     *
     * @return one sentence for the start-up log.
     */
    public String advertisedHostReason()
    {
        return addresses.advertisedHostReason();
    }

    /**
     * Whether {@link #advertisedHost()} was picked among this machine's interfaces (a wildcard bind without
     * {@code advertised.host}); the node logs the choice at INFO.
     *
     * @return true when picked.
     */
    public boolean advertisedHostPicked()
    {
        return addresses.advertisedHostPicked();
    }

    /** True when a wildcard-bound node found nothing but loopback to advertise (it logs a WARN). */
    public boolean advertisedLoopbackOnly()
    {
        return addresses.advertisedLoopbackOnly();
    }

    public int controlPort()
    {
        return addresses.controlPort();
    }

    /**
     * The control port clients and peers are told (WELCOME's cluster map, WRONG_NODE redirects, cluster membership):
     * {@code advertised.controlPort}, else the bound one.
     *
     * @param bound the port the control plane is bound to.
     * @return the port to advertise.
     */
    public int advertisedControlPort(final int bound)
    {
        return addresses.advertisedControlPort(bound);
    }

    /**
     * The data port clients and peers are told (WELCOME's address of the node's transport, cluster membership):
     * {@code advertised.dataPort}, else the bound one.
     *
     * @param bound the port the transport's listener is bound to.
     * @return the port to advertise.
     */
    public int advertisedDataPort(final int bound)
    {
        return addresses.advertisedDataPort(bound);
    }

    /**
     * The port the node's TCP transport is told at when it serves TCP beside another transport (verbs, shm):
     * {@code advertised.tcpPort}, else the bound one. A TCP-only node's TCP port is its data port.
     *
     * @param bound the port the TCP listener is bound to.
     * @return the port to advertise.
     */
    public int advertisedTcpPort(final int bound)
    {
        return addresses.advertisedTcpPort(bound);
    }

    /** Whether the node also serves {@code shm} to clients on its host ({@code transport.serveShm}). */
    public ShmServing serveShm()
    {
        return serveShm;
    }

    /** The TCP listener's port when TCP is served beside another transport ({@code data.tcpPort}; 0 = any). */
    public int tcpPort()
    {
        return addresses.tcpPort();
    }

    /** The shm listener's port (its abstract socket's name) when shm is served beside another: {@code data.shmPort}. */
    public int shmPort()
    {
        return addresses.shmPort();
    }

    public int dataPort()
    {
        return addresses.dataPort();
    }

    public int maxControlFrameBytes()
    {
        return maxControlFrameBytes;
    }

    public int maxKeyBytes()
    {
        return maxKeyBytes;
    }

    public int maxValueBytes()
    {
        return maxValueBytes;
    }

    public int maxMessageBytes()
    {
        return maxMessageBytes;
    }

    public int maxConnections()
    {
        return maxConnections;
    }

    /** The shared secret clients must present, or {@code null} when authentication is off. A copy. */
    public byte[] secret()
    {
        return security.secret();
    }

    /** How long a session ticket stays redeemable. */
    public long ticketTtlMillis()
    {
        return ticketTtlMillis;
    }

    /** Admission of unauthenticated connections, the failed-credential throttle ({@code limits.*}, {@code auth.*}). */
    public AdmissionSettings admission()
    {
        return admission;
    }

    /** The secret and TLS ({@code auth.secret}, {@code auth.secretFile}, {@code tls.*}). */
    public SecuritySettings security()
    {
        return security;
    }

    /** The static cluster map: this node alone covering every slot unless {@code cluster.nodes} is set. */
    public List<ClusterNode> clusterNodes()
    {
        return clusterNodes;
    }

    /** Cluster mode ({@code cluster.voters} and the rest); {@link ClusterSettings#enabled()} false on its own. */
    public ClusterSettings cluster()
    {
        return cluster;
    }

    /** Settings under {@code tcp.} and {@code verbs.}, for the transport. */
    public Map<String, String> transportProperties()
    {
        return transportProperties;
    }

    /** Port of the Prometheus endpoint ({@code metrics.port}); 0 when off. */
    public int metricsPort()
    {
        return metricsPort;
    }

    /** The RESP listener's settings ({@code resp.*}). */
    public RespPortSettings resp()
    {
        return resp;
    }

    @Override
    public String toString()
    {
        final Map<String, String> m = toSettings();
        if (m.containsKey("auth.secret"))
        {
            m.put("auth.secret", "<set>");
        }
        return "ServerConfig" + m;
    }

    /**
     * Parse a size in bytes: a number with an optional unit, case-insensitive; KiB, MiB, GiB, TiB binary, KB, MB, GB,
     * TB decimal, a bare k, m, g, t binary as in {@code -Xmx}, B bytes; a fraction only when it comes to whole bytes.
     *
     * @throws NumberFormatException naming the value, for anything else or a size beyond {@code Long.MAX_VALUE}.
     */
    public static long parseSize(final String value)
    {
        return SettingValues.parseSize(value);
    }
}
