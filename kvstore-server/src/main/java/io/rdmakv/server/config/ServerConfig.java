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
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Settings of one server node: read from a properties file, overridden by command-line flags, validated once.
 * Every setting is declared once, with its type, default, bounds and meaning, as a {@link Setting} of a topic catalogue
 * ({@link SettingCatalog} lists them; {@link #KNOWN} their defaults); this class reads its fields through those
 * declarations and checks what spans several settings. Every default runs out of the box on a laptop.
 * {@link SettingsReference} prints them ({@code rdmakv server --list-settings}, and the generated page
 * {@code docs/settings.md}, which a test keeps equal to the code). Sizes follow {@link #parseSize}.
 * Cluster settings ({@code cluster.*}): see {@link ClusterSettings}; the listen and advertised addresses: see
 * {@code NodeAddresses}.
 */
public final class ServerConfig
{
    public static final int DEFAULT_CONTROL_PORT = 7400;
    public static final int DEFAULT_DATA_PORT = 7401;
    /** Longest key the on-pool format accepts. */
    public static final int FORMAT_MAX_KEY_BYTES = 1024;
    /** Largest extent (2 MiB - 64 B) minus its 40-byte header: key + value must fit in it. */
    public static final int FORMAT_MAX_KEY_PLUS_VALUE = (2 << 20) - 64 - 40;
    /** Data-plane bytes beyond key + value: message header and request fields, with room to spare. */
    public static final int MESSAGE_OVERHEAD_BYTES = 256;
    /** The transport's own default credits per endpoint ({@code TransportConfig}); this package cannot see it. */
    public static final int DEFAULT_MAX_INFLIGHT_PER_ENDPOINT = 128;
    /** Most credits per endpoint: the deepest verbs send/receive queue the transport accepts. */
    public static final int MAX_INFLIGHT_PER_ENDPOINT = 16_384;

    /** Every accepted setting and its default ({@code null}: none or derived): {@link SettingCatalog#defaults()}. */
    public static final Map<String, String> KNOWN = SettingCatalog.defaults();

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
    private final boolean memoryWindows;
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
        nodeId = NodeKeys.NODE_ID.get(s);
        dataDir = NodeKeys.DATA_DIR.get(s);
        durability = NodeKeys.DURABILITY.get(s);
        replicationTimeoutMillis = NodeKeys.REPLICATION_TIMEOUT_MS.get(s);
        replicationAckPollMicros = NodeKeys.REPLICATION_ACK_POLL_MICROS.get(s);
        writeBufferSize = NodeKeys.WRITE_BUFFER_SIZE.get(s);
        walRecovery = NodeKeys.WAL_RECOVERY.get(s);
        // RocksDB's resume after a full disk flushes the memtable into the space the reserve frees.
        final long reserve = NodeKeys.DISK_RESERVE.get(s);
        diskReserve = reserve == 0 ? 0 : Math.max(reserve, writeBufferSize);
        poolSize = PoolKeys.SIZE.get(s);
        poolPartitionSize = PoolKeys.PARTITION_SIZE.get(s);
        pinMode = PoolKeys.PIN.get(s);
        hugePages = PoolKeys.HUGE_PAGES.get(s);
        reclaimGraceMillis = PoolKeys.RECLAIM_GRACE_MS.get(s);
        scribbleRetired = PoolKeys.SCRIBBLE_RETIRED.get(s);
        indexAvgEntryBytes = PoolKeys.INDEX_AVG_ENTRY_BYTES.get(s);
        transport = NetworkKeys.TRANSPORT.get(s);
        maxInflightPerEndpoint = NetworkKeys.MAX_INFLIGHT_PER_ENDPOINT.get(s);
        addresses = new NodeAddresses(s);
        maxControlFrameBytes = NetworkKeys.CONTROL_MAX_FRAME_BYTES.get(s);
        maxKeyBytes = LimitKeys.MAX_KEY_BYTES.get(s);
        maxValueBytes = within(s, LimitKeys.MAX_VALUE_BYTES, 0, FORMAT_MAX_KEY_PLUS_VALUE - maxKeyBytes);
        final int leastMessage = maxKeyBytes + maxValueBytes + MESSAGE_OVERHEAD_BYTES;
        final Integer mm = LimitKeys.MAX_MESSAGE_BYTES.get(s);
        maxMessageBytes = mm == null ? leastMessage : within(s, LimitKeys.MAX_MESSAGE_BYTES, leastMessage,
            Integer.MAX_VALUE);
        maxConnections = LimitKeys.MAX_CONNECTIONS.get(s);
        security = new SecuritySettings(s);
        ticketTtlMillis = LimitKeys.TICKET_TTL_MS.get(s);
        admission = new AdmissionSettings(LimitKeys.MAX_UNAUTHENTICATED.get(s),
            LimitKeys.MAX_UNAUTHENTICATED_PER_SOURCE.get(s),
            Duration.ofMillis(LimitKeys.HANDSHAKE_TIMEOUT_MS.get(s)), LimitKeys.FAILED_CREDENTIAL_BURST.get(s),
            Duration.ofMillis(LimitKeys.FAILED_CREDENTIAL_INTERVAL_MS.get(s)));
        serveShm = NetworkKeys.SERVE_SHM.get(s);
        memoryWindows = SecurityKeys.MEMORY_WINDOWS.get(s);
        final boolean staticMap = ClusterKeys.NODES.isGiven(s);
        if (!staticMap)
        {
            clusterNodes = List.of(new ClusterNode(nodeId, addresses.advertisedHost(),
                addresses.advertisedControlPort(addresses.controlPort()), 0, ClusterNode.HASH_SLOT_COUNT - 1));
        }
        else
        {
            clusterNodes = ClusterNode.parseList(ClusterKeys.NODES.get(s));
            if (clusterNodes.stream().noneMatch(n -> n.nodeId() == nodeId))
            {
                throw new ConfigException(ClusterKeys.NODES + " does not contain this node (" + NodeKeys.NODE_ID +
                    "=" + nodeId + ")");
            }
        }
        cluster = ClusterSettings.parse(s, dataDir);
        if (cluster.enabled() && staticMap)
        {
            throw new ConfigException(ClusterKeys.VOTERS + " and " + ClusterKeys.NODES + " exclude each other: a " +
                "replicated cluster's slot map is decided by its voters, not configured");
        }
        final Map<String, String> tp = new TreeMap<>();
        s.forEach((k, v) ->
        {
            if (SettingCatalog.isTransportProperty(k))
            {
                tp.put(k, v);
            }
        });
        transportProperties = java.util.Collections.unmodifiableMap(tp);
        metricsPort = NetworkKeys.METRICS_PORT.get(s);
        resp = RespPortSettings.parse(s);
    }

    /** {@code setting}'s value, refused outside {@code [min, max]}, a range derived from other settings. */
    private static int within(final Map<String, String> s, final Setting<Integer> setting, final int min,
        final int max)
    {
        final int v = setting.get(s);
        if (v < min || v > max)
        {
            throw SettingValues.outOfRange(setting.name(), min, max, setting.text(s));
        }
        return v;
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

    /**
     * Whether each data session reads through a memory window of its own where the main transport has them
     * ({@code auth.memoryWindows}: auto = true, off = false).
     */
    public boolean memoryWindows()
    {
        return memoryWindows;
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
        if (m.containsKey(SecurityKeys.SECRET.name()))
        {
            m.put(SecurityKeys.SECRET.name(), "<set>");
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
