package io.rdmakv.server.config;

import io.rdmakv.server.store.Durability;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Typed construction of a {@link ServerConfig} (as Aeron's {@code Context}): for embedding a node in code. Every
 * setter stands for one declared {@link Setting} ({@link SettingCatalog}); what is not set keeps its default, and
 * {@link #build()} validates everything at once with the same rules and messages as the properties file
 * ({@link ServerConfig#from} builds through this class too). Not thread-safe; build once.
 *
 * <pre>
 *   ServerConfig config = ServerConfig.builder().dataDir(dir).durability(Durability.FSYNC).dataPort(0).build();
 * </pre>
 */
public final class ServerConfigBuilder
{
    private final Map<String, String> settings = new TreeMap<>();

    ServerConfigBuilder()
    {
        for (final Setting<?> setting : SettingCatalog.ALL)
        {
            if (setting.defaultValue() != null)
            {
                settings.put(setting.name(), setting.defaultValue());
            }
        }
    }

    /**
     * One setting by name, as a properties file gives it.
     *
     * @throws ConfigException for an unknown name (values are checked by {@link #build()}).
     */
    public ServerConfigBuilder set(final String name, final String value)
    {
        settings.put(SettingCatalog.checkName(name), value.trim());
        return this;
    }

    /**
     * One declared setting, as a properties file gives it (the typed setters below go through here).
     *
     * @return this builder (the value is checked by {@link #build()}).
     */
    public ServerConfigBuilder set(final Setting<?> setting, final String value)
    {
        return set(setting.name(), value);
    }

    /** Forget a setting (its default, or nothing when it has none, applies again). */
    public ServerConfigBuilder clear(final String name)
    {
        final Setting<?> setting = SettingCatalog.find(SettingCatalog.checkName(name));
        if (setting == null || setting.defaultValue() == null)
        {
            settings.remove(name);
        }
        else
        {
            settings.put(name, setting.defaultValue());
        }
        return this;
    }

    /** Forget a declared setting (its default, or nothing when it has none, applies again). */
    public ServerConfigBuilder clear(final Setting<?> setting)
    {
        return clear(setting.name());
    }

    public ServerConfigBuilder nodeId(final int nodeId)
    {
        return set(NodeKeys.NODE_ID, Integer.toString(nodeId));
    }

    public ServerConfigBuilder dataDir(final Path dataDir)
    {
        return set(NodeKeys.DATA_DIR, dataDir.toString());
    }

    public ServerConfigBuilder durability(final Durability durability)
    {
        return set(NodeKeys.DURABILITY, durability.name());
    }

    /** How long a primary waits for a backup's acknowledgement before asking it out of the in-sync set. */
    public ServerConfigBuilder replicationTimeoutMillis(final long millis)
    {
        return set(NodeKeys.REPLICATION_TIMEOUT_MS, Long.toString(millis));
    }

    /** How long a primary polls (yielding) for a backup's acknowledgement before it sleeps; 0 = sleep at once. */
    public ServerConfigBuilder replicationAckPollMicros(final long micros)
    {
        return set(NodeKeys.REPLICATION_ACK_POLL_MICROS, Long.toString(micros));
    }

    /** RocksDB memtable size in bytes. */
    public ServerConfigBuilder writeBufferSize(final long bytes)
    {
        return set(NodeKeys.WRITE_BUFFER_SIZE, Long.toString(bytes));
    }

    /** Bytes of the reserve file released when the disk is full; 0 = none. */
    public ServerConfigBuilder diskReserve(final long bytes)
    {
        return set(NodeKeys.DISK_RESERVE, Long.toString(bytes));
    }

    public ServerConfigBuilder poolSize(final long bytes)
    {
        return set(PoolKeys.SIZE, Long.toString(bytes));
    }

    public ServerConfigBuilder poolPartitionSize(final long bytes)
    {
        return set(PoolKeys.PARTITION_SIZE, Long.toString(bytes));
    }

    public ServerConfigBuilder pinMode(final PinMode pinMode)
    {
        return set(PoolKeys.PIN, pinMode.name());
    }

    /** NONE, TRANSPARENT or EXPLICIT. */
    public ServerConfigBuilder hugePages(final String hugePages)
    {
        return set(PoolKeys.HUGE_PAGES, hugePages);
    }

    public ServerConfigBuilder reclaimGraceMillis(final long millis)
    {
        return set(PoolKeys.RECLAIM_GRACE_MS, Long.toString(millis));
    }

    public ServerConfigBuilder scribbleRetired(final boolean scribble)
    {
        return set(PoolKeys.SCRIBBLE_RETIRED, Boolean.toString(scribble));
    }

    public ServerConfigBuilder indexAvgEntryBytes(final int bytes)
    {
        return set(PoolKeys.INDEX_AVG_ENTRY_BYTES, Integer.toString(bytes));
    }

    /** auto, tcp or verbs. */
    public ServerConfigBuilder transport(final String transport)
    {
        return set(NetworkKeys.TRANSPORT, transport);
    }

    public ServerConfigBuilder maxInflightPerEndpoint(final int credits)
    {
        return set(NetworkKeys.MAX_INFLIGHT_PER_ENDPOINT, Integer.toString(credits));
    }

    /** A {@code tcp.*}, {@code verbs.*} or {@code shm.*} property for the transports. */
    public ServerConfigBuilder transportProperty(final String name, final String value)
    {
        if (!SettingCatalog.isTransportProperty(name))
        {
            throw new ConfigException("transport properties start with tcp., verbs. or shm.: " + name);
        }
        return set(name, value);
    }

    public ServerConfigBuilder host(final String host)
    {
        return set(NetworkKeys.HOST, host);
    }

    public ServerConfigBuilder advertisedHost(final String host)
    {
        return set(NetworkKeys.ADVERTISED_HOST, host);
    }

    /**
     * The control port clients and peers are told, when it differs from the bound one (NAT, Docker {@code -p}).
     *
     * @param port 1..65535.
     * @return this builder.
     */
    public ServerConfigBuilder advertisedControlPort(final int port)
    {
        return set(NetworkKeys.ADVERTISED_CONTROL_PORT, Integer.toString(port));
    }

    /**
     * The data port clients and peers are told, when it differs from the bound one (NAT, Docker {@code -p}).
     *
     * @param port 1..65535.
     * @return this builder.
     */
    public ServerConfigBuilder advertisedDataPort(final int port)
    {
        return set(NetworkKeys.ADVERTISED_DATA_PORT, Integer.toString(port));
    }

    /** 0 picks a free port. */
    public ServerConfigBuilder controlPort(final int port)
    {
        return set(NetworkKeys.CONTROL_PORT, Integer.toString(port));
    }

    /** 0 picks a free port. */
    public ServerConfigBuilder dataPort(final int port)
    {
        return set(NetworkKeys.DATA_PORT, Integer.toString(port));
    }

    public ServerConfigBuilder maxControlFrameBytes(final int bytes)
    {
        return set(NetworkKeys.CONTROL_MAX_FRAME_BYTES, Integer.toString(bytes));
    }

    public ServerConfigBuilder maxKeyBytes(final int bytes)
    {
        return set(LimitKeys.MAX_KEY_BYTES, Integer.toString(bytes));
    }

    public ServerConfigBuilder maxValueBytes(final int bytes)
    {
        return set(LimitKeys.MAX_VALUE_BYTES, Integer.toString(bytes));
    }

    public ServerConfigBuilder maxMessageBytes(final int bytes)
    {
        return set(LimitKeys.MAX_MESSAGE_BYTES, Integer.toString(bytes));
    }

    public ServerConfigBuilder maxConnections(final int connections)
    {
        return set(LimitKeys.MAX_CONNECTIONS, Integer.toString(connections));
    }

    /** The shared secret clients (and peers) present; {@code null} turns authentication off. */
    public ServerConfigBuilder secret(final String secret)
    {
        return secret == null ? clear(SecurityKeys.SECRET) : set(SecurityKeys.SECRET, secret);
    }

    public ServerConfigBuilder ticketTtlMillis(final long millis)
    {
        return set(LimitKeys.TICKET_TTL_MS, Long.toString(millis));
    }

    /** The static cluster map, {@code id@host:controlPort:firstSlot-lastSlot,...}. */
    public ServerConfigBuilder clusterNodes(final String nodes)
    {
        return set(ClusterKeys.NODES, nodes);
    }

    /**
     * Validate and build.
     *
     * @throws ConfigException naming the first invalid setting.
     */
    public ServerConfig build()
    {
        return new ServerConfig(settings);
    }
}
