package io.rdmakv.server.config;

import io.rdmakv.server.store.Durability;

import java.io.IOException;
import java.io.Reader;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Settings of one server node: read from a properties file, overridden by command-line flags, validated once.
 * Every setting has a default that runs out of the box on a laptop; {@link #KNOWN} lists them with their meaning.
 *
 * <pre>
 *   setting                 default      meaning
 *   node.id                 1            this node's id in the cluster map
 *   data.dir                ./data       RocksDB directory
 *   durability              DEFAULT      DEFAULT (survives kill -9) | FSYNC (survives power loss, group commit)
 *   replication.timeoutMs   1000         how long a primary waits for an in-sync backup's acknowledgement before it
 *                                        asks the coordinator to remove that backup from the in-sync set
 *   store.writeBufferSize   8MiB         RocksDB memtable size (write_buffer_size), 1 MiB to 1 GiB; the memtable insert
 *                                        runs on the request thread, and a small skiplist stays in cache (RocksDB's
 *                                        64 MiB default costs that thread ~1.5x the CPU per write; flushes run on
 *                                        RocksDB's own threads). The WAL and durability are the same at any size
 *   pool.size               64MiB        pinned, registered pool (header + index + extents); k/m/g, KiB/MiB/GiB
 *   pool.partitionSize      1GiB         pool view partition (power of two, at most 1 GiB)
 *   pool.pin                AUTO         AUTO | REQUIRED | BEST_EFFORT | OFF (AUTO: REQUIRED on verbs, else BEST_EFFORT)
 *   pool.hugePages          NONE         NONE | TRANSPARENT | EXPLICIT
 *   pool.reclaimGraceMs     100          grace period before a freed extent is reused (longer than a client read)
 *   pool.scribbleRetired    false        test/debug: overwrite an extent the moment it is superseded, as if reused at
 *                                        once by a hostile writer (every stale one-sided read then fails its check)
 *   index.avgEntryBytes     224          expected average extent size; sizes the index (at most 16 B of index per key;
 *                                        224 puts power-of-two pools at a slot load of ~0.54, ~14.9 B per key)
 *   transport               auto         auto | tcp | verbs
 *   transport.maxInflightPerEndpoint
 *                           128          operations one data endpoint keeps in flight (the transport's credits, 1 to
 *                                        16384; on verbs also the default send and receive depth); more wait in the
 *                                        endpoint's pending queue (a client sets it as the transport property
 *                                        maxInflightPerEndpoint)
 *   host                    0.0.0.0      bind address of both ports
 *   advertised.host         (derived)    address clients are told; host when not a wildcard, else this host's address
 *   control.port            7400         control plane (Netty; HELLO/WELCOME handshake); 0 = any free port
 *   data.port               7401         data plane (transport listener: PUT/DELETE/GET/STATS); 0 = any free port
 *   control.maxFrameBytes   65536        largest control-plane frame accepted
 *   limits.maxKeyBytes      1024         largest key
 *   limits.maxValueBytes    1048576      largest value
 *   limits.maxMessageBytes  (derived)    largest data-plane message: header + key + value + slack
 *   limits.maxConnections   1024         concurrent data + control connections per plane
 *   auth.secret             (none)       shared secret a client must present in HELLO; none = open
 *   auth.ticketTtlMs        30000        how long a WELCOME's session ticket may wait for the ATTACH that opens a
 *                                        data endpoint (single use); also how long a data connection may take to
 *                                        attach before it is closed
 *   cluster.nodes           (this node)  id@host:controlPort:firstSlot-lastSlot,... (16384 slots in total)
 *   cluster.voters, cluster.replicas, cluster.initialNodes, cluster.leaseMs, cluster.maxClockDrift, cluster.raftDir
 *                           (off)        a replicated cluster coordinated by Apache Ratis: see {@link ClusterSettings}
 *   tcp.* / verbs.*         -            passed to the transport as properties
 * </pre>
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
        m.put("store.writeBufferSize", "8MiB");
        m.put("pool.size", "64MiB");
        m.put("pool.partitionSize", "1GiB");
        m.put("pool.pin", "AUTO");
        m.put("pool.hugePages", "NONE");
        m.put("pool.reclaimGraceMs", "100");
        m.put("pool.scribbleRetired", "false");
        m.put("index.avgEntryBytes", "224");
        m.put("transport", "auto");
        m.put("transport.maxInflightPerEndpoint", String.valueOf(DEFAULT_MAX_INFLIGHT_PER_ENDPOINT));
        m.put("host", "0.0.0.0");
        m.put("advertised.host", null);
        m.put("control.port", String.valueOf(DEFAULT_CONTROL_PORT));
        m.put("data.port", String.valueOf(DEFAULT_DATA_PORT));
        m.put("control.maxFrameBytes", "65536");
        m.put("limits.maxKeyBytes", "1024");
        m.put("limits.maxValueBytes", String.valueOf(1 << 20));
        m.put("limits.maxMessageBytes", null);
        m.put("limits.maxConnections", "1024");
        m.put("auth.secret", null);
        m.put("auth.ticketTtlMs", "30000");
        m.put("cluster.nodes", null);
        m.putAll(ClusterSettings.DEFAULTS);
        KNOWN = java.util.Collections.unmodifiableMap(m);
    }

    private final int nodeId;
    private final Path dataDir;
    private final Durability durability;
    private final long replicationTimeoutMillis;
    private final long writeBufferSize;
    private final long poolSize;
    private final long poolPartitionSize;
    private final PinMode pinMode;
    private final String hugePages;
    private final long reclaimGraceMillis;
    private final boolean scribbleRetired;
    private final int indexAvgEntryBytes;
    private final String transport;
    private final int maxInflightPerEndpoint;
    private final String host;
    private final String advertisedHost;
    private final int controlPort;
    private final int dataPort;
    private final int maxControlFrameBytes;
    private final int maxKeyBytes;
    private final int maxValueBytes;
    private final int maxMessageBytes;
    private final int maxConnections;
    private final byte[] secret;
    private final long ticketTtlMillis;
    private final List<ClusterNode> clusterNodes;
    private final ClusterSettings cluster;
    private final Map<String, String> transportProperties;
    /** The settings as given (defaults + file + flags), so {@link #with} re-derives what was derived. */
    private final Map<String, String> given;

    ServerConfig(final Map<String, String> s)
    {
        given = java.util.Collections.unmodifiableMap(new TreeMap<>(s));
        nodeId = intSetting(s, "node.id", 0, Integer.MAX_VALUE);
        dataDir = Path.of(s.get("data.dir"));
        durability = enumSetting(s, "durability", () -> Durability.parse(s.get("durability")));
        replicationTimeoutMillis = intSetting(s, "replication.timeoutMs", 1, 600_000);
        writeBufferSize = sizeSetting(s, "store.writeBufferSize", 1L << 20, 1L << 30);
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
            throw new ConfigException("pool.hugePages must be NONE, TRANSPARENT or EXPLICIT: " + s.get("pool.hugePages"));
        }
        reclaimGraceMillis = intSetting(s, "pool.reclaimGraceMs", 0, 3_600_000);
        scribbleRetired = booleanSetting(s, "pool.scribbleRetired");
        indexAvgEntryBytes = intSetting(s, "index.avgEntryBytes", 64, FORMAT_MAX_KEY_PLUS_VALUE);
        transport = s.get("transport").trim().toLowerCase(Locale.ROOT);
        maxInflightPerEndpoint = intSetting(s, "transport.maxInflightPerEndpoint", 1, MAX_INFLIGHT_PER_ENDPOINT);
        host = s.get("host").trim();
        controlPort = intSetting(s, "control.port", 0, 65_535);
        dataPort = intSetting(s, "data.port", 0, 65_535);
        if (controlPort != 0 && controlPort == dataPort)
        {
            throw new ConfigException("control.port and data.port must differ: both are " + controlPort);
        }
        // The handshake codec never accepts more than 64 KiB, so a larger setting would only be misleading.
        maxControlFrameBytes = intSetting(s, "control.maxFrameBytes", 256, 1 << 16);
        maxKeyBytes = intSetting(s, "limits.maxKeyBytes", 1, FORMAT_MAX_KEY_BYTES);
        maxValueBytes = intSetting(s, "limits.maxValueBytes", 0, FORMAT_MAX_KEY_PLUS_VALUE - maxKeyBytes);
        final String mm = s.get("limits.maxMessageBytes");
        maxMessageBytes = mm == null ? maxKeyBytes + maxValueBytes + MESSAGE_OVERHEAD_BYTES :
            intSetting(s, "limits.maxMessageBytes", maxKeyBytes + maxValueBytes + MESSAGE_OVERHEAD_BYTES,
                Integer.MAX_VALUE);
        maxConnections = intSetting(s, "limits.maxConnections", 1, 1_000_000);
        final String sec = s.get("auth.secret");
        secret = sec == null || sec.isEmpty() ? null : sec.getBytes(StandardCharsets.UTF_8);
        ticketTtlMillis = intSetting(s, "auth.ticketTtlMs", 1, 3_600_000);
        advertisedHost = s.get("advertised.host") != null ? s.get("advertised.host").trim() : deriveAdvertised(host);
        final String nodes = s.get("cluster.nodes");
        if (nodes == null || nodes.isBlank())
        {
            clusterNodes = List.of(new ClusterNode(nodeId, advertisedHost, controlPort, 0, ClusterNode.SLOT_COUNT - 1));
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
            if (k.startsWith("tcp.") || k.startsWith("verbs."))
            {
                tp.put(k, v);
            }
        });
        transportProperties = java.util.Collections.unmodifiableMap(tp);
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
                throw new ConfigException("cannot read config file " + file.toAbsolutePath() + ": " + ex.getMessage(), ex);
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

    /** RocksDB's memtable size in bytes ({@code store.writeBufferSize}). */
    public long writeBufferSize()
    {
        return writeBufferSize;
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
        return host;
    }

    public String advertisedHost()
    {
        return advertisedHost;
    }

    public int controlPort()
    {
        return controlPort;
    }

    public int dataPort()
    {
        return dataPort;
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
        return secret == null ? null : secret.clone();
    }

    /** How long a session ticket stays redeemable, and how long a data connection may take to attach. */
    public long ticketTtlMillis()
    {
        return ticketTtlMillis;
    }

    public boolean requiresCredential()
    {
        return secret != null;
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

    /** Parse sizes like {@code 65536}, {@code 64k}, {@code 64KiB}, {@code 64m}, {@code 1GiB}. */
    public static long parseSize(final String value)
    {
        final String v = value.trim().toLowerCase(Locale.ROOT).replace("ib", "").replace("b", "");
        long multiplier = 1;
        String digits = v;
        if (!v.isEmpty())
        {
            switch (v.charAt(v.length() - 1))
            {
                case 'k' -> multiplier = 1L << 10;
                case 'm' -> multiplier = 1L << 20;
                case 'g' -> multiplier = 1L << 30;
                case 't' -> multiplier = 1L << 40;
                default -> multiplier = 1;
            }
            if (multiplier != 1)
            {
                digits = v.substring(0, v.length() - 1).trim();
            }
        }
        final long n = Long.parseLong(digits);
        if (n < 0 || n > Long.MAX_VALUE / multiplier)
        {
            throw new NumberFormatException("size out of range: " + value);
        }
        return n * multiplier;
    }

    static String checkName(final String name)
    {
        if (KNOWN.containsKey(name) || name.startsWith("tcp.") || name.startsWith("verbs."))
        {
            return name;
        }
        throw new ConfigException("unknown setting '" + name + "'; known: " + KNOWN.keySet() + " and tcp.*, verbs.*");
    }

    private static String upper(final String v)
    {
        return v.trim().toUpperCase(Locale.ROOT);
    }

    private static int intSetting(final Map<String, String> s, final String name, final int min, final int max)
    {
        final String v = s.get(name);
        final long n;
        try
        {
            n = Long.parseLong(v.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException(name + " must be a whole number: '" + v + "'");
        }
        if (n < min || n > max)
        {
            throw new ConfigException(name + " must be between " + min + " and " + max + ": " + v);
        }
        return (int)n;
    }

    private static boolean booleanSetting(final Map<String, String> s, final String name)
    {
        final String v = s.get(name).trim().toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false"))
        {
            throw new ConfigException(name + " must be true or false: '" + s.get(name) + "'");
        }
        return v.equals("true");
    }

    private static long sizeSetting(final Map<String, String> s, final String name, final long min, final long max)
    {
        final String v = s.get(name);
        final long n;
        try
        {
            n = parseSize(v);
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException(name + " must be a size like 65536, 64MiB or 1GiB: '" + v + "'");
        }
        if (n < min || n > max)
        {
            throw new ConfigException(name + " must be between " + min + " and " + max + " bytes: " + v);
        }
        return n;
    }

    private static <T> T enumSetting(final Map<String, String> s, final String name, final java.util.function.Supplier<T> parse)
    {
        try
        {
            return parse.get();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigException(name + ": invalid value '" + s.get(name) + "' (" + ex.getMessage() + ")");
        }
    }

    private static String deriveAdvertised(final String host)
    {
        if (!host.equals("0.0.0.0") && !host.equals("::") && !host.isEmpty())
        {
            return host;
        }
        try
        {
            return InetAddress.getLocalHost().getHostAddress();
        }
        catch (final UnknownHostException ex)
        {
            return "127.0.0.1";
        }
    }
}
