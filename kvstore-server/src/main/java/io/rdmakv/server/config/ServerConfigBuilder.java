package io.rdmakv.server.config;

import io.rdmakv.server.store.Durability;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Typed construction of a {@link ServerConfig} (as Aeron's {@code Context}): for embedding a node in code. Every
 * setter stands for one setting of {@link ServerConfig#KNOWN}; what is not set keeps its default, and
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
        ServerConfig.KNOWN.forEach((name, value) ->
        {
            if (value != null)
            {
                settings.put(name, value);
            }
        });
    }

    /**
     * One setting by name, as a properties file gives it.
     *
     * @throws ConfigException for an unknown name (values are checked by {@link #build()}).
     */
    public ServerConfigBuilder set(final String name, final String value)
    {
        settings.put(SettingValues.checkName(name), value.trim());
        return this;
    }

    /** Forget a setting (its default, or nothing when it has none, applies again). */
    public ServerConfigBuilder clear(final String name)
    {
        final String defaultValue = ServerConfig.KNOWN.get(SettingValues.checkName(name));
        if (defaultValue == null)
        {
            settings.remove(name);
        }
        else
        {
            settings.put(name, defaultValue);
        }
        return this;
    }

    public ServerConfigBuilder nodeId(final int nodeId)
    {
        return set("node.id", Integer.toString(nodeId));
    }

    public ServerConfigBuilder dataDir(final Path dataDir)
    {
        return set("data.dir", dataDir.toString());
    }

    public ServerConfigBuilder durability(final Durability durability)
    {
        return set("durability", durability.name());
    }

    /** How long a primary waits for a backup's acknowledgement before asking it out of the in-sync set. */
    public ServerConfigBuilder replicationTimeoutMillis(final long millis)
    {
        return set("replication.timeoutMs", Long.toString(millis));
    }

    /** How long a primary polls (yielding) for a backup's acknowledgement before it sleeps; 0 = sleep at once. */
    public ServerConfigBuilder replicationAckPollMicros(final long micros)
    {
        return set("replication.ackPollMicros", Long.toString(micros));
    }

    /** RocksDB memtable size in bytes. */
    public ServerConfigBuilder writeBufferSize(final long bytes)
    {
        return set("store.writeBufferSize", Long.toString(bytes));
    }

    /** Bytes of the reserve file released when the disk is full; 0 = none. */
    public ServerConfigBuilder diskReserve(final long bytes)
    {
        return set("store.diskReserve", Long.toString(bytes));
    }

    public ServerConfigBuilder poolSize(final long bytes)
    {
        return set("pool.size", Long.toString(bytes));
    }

    public ServerConfigBuilder poolPartitionSize(final long bytes)
    {
        return set("pool.partitionSize", Long.toString(bytes));
    }

    public ServerConfigBuilder pinMode(final PinMode pinMode)
    {
        return set("pool.pin", pinMode.name());
    }

    /** NONE, TRANSPARENT or EXPLICIT. */
    public ServerConfigBuilder hugePages(final String hugePages)
    {
        return set("pool.hugePages", hugePages);
    }

    public ServerConfigBuilder reclaimGraceMillis(final long millis)
    {
        return set("pool.reclaimGraceMs", Long.toString(millis));
    }

    public ServerConfigBuilder scribbleRetired(final boolean scribble)
    {
        return set("pool.scribbleRetired", Boolean.toString(scribble));
    }

    public ServerConfigBuilder indexAvgEntryBytes(final int bytes)
    {
        return set("index.avgEntryBytes", Integer.toString(bytes));
    }

    /** auto, tcp or verbs. */
    public ServerConfigBuilder transport(final String transport)
    {
        return set("transport", transport);
    }

    public ServerConfigBuilder maxInflightPerEndpoint(final int credits)
    {
        return set("transport.maxInflightPerEndpoint", Integer.toString(credits));
    }

    /** A {@code tcp.*}, {@code verbs.*} or {@code shm.*} property for the transports. */
    public ServerConfigBuilder transportProperty(final String name, final String value)
    {
        if (!SettingValues.isTransportProperty(name))
        {
            throw new ConfigException("transport properties start with tcp., verbs. or shm.: " + name);
        }
        return set(name, value);
    }

    public ServerConfigBuilder host(final String host)
    {
        return set("host", host);
    }

    public ServerConfigBuilder advertisedHost(final String host)
    {
        return set("advertised.host", host);
    }

    /**
     * The control port clients and peers are told, when it differs from the bound one (NAT, Docker {@code -p}).
     *
     * @param port 1..65535.
     * @return this builder.
     */
    public ServerConfigBuilder advertisedControlPort(final int port)
    {
        return set("advertised.controlPort", Integer.toString(port));
    }

    /**
     * The data port clients and peers are told, when it differs from the bound one (NAT, Docker {@code -p}).
     *
     * @param port 1..65535.
     * @return this builder.
     */
    public ServerConfigBuilder advertisedDataPort(final int port)
    {
        return set("advertised.dataPort", Integer.toString(port));
    }

    /** 0 picks a free port. */
    public ServerConfigBuilder controlPort(final int port)
    {
        return set("control.port", Integer.toString(port));
    }

    /** 0 picks a free port. */
    public ServerConfigBuilder dataPort(final int port)
    {
        return set("data.port", Integer.toString(port));
    }

    public ServerConfigBuilder maxControlFrameBytes(final int bytes)
    {
        return set("control.maxFrameBytes", Integer.toString(bytes));
    }

    public ServerConfigBuilder maxKeyBytes(final int bytes)
    {
        return set("limits.maxKeyBytes", Integer.toString(bytes));
    }

    public ServerConfigBuilder maxValueBytes(final int bytes)
    {
        return set("limits.maxValueBytes", Integer.toString(bytes));
    }

    public ServerConfigBuilder maxMessageBytes(final int bytes)
    {
        return set("limits.maxMessageBytes", Integer.toString(bytes));
    }

    public ServerConfigBuilder maxConnections(final int connections)
    {
        return set("limits.maxConnections", Integer.toString(connections));
    }

    /** The shared secret clients (and peers) present; {@code null} turns authentication off. */
    public ServerConfigBuilder secret(final String secret)
    {
        return secret == null ? clear("auth.secret") : set("auth.secret", secret);
    }

    public ServerConfigBuilder ticketTtlMillis(final long millis)
    {
        return set("auth.ticketTtlMs", Long.toString(millis));
    }

    /** The static cluster map, {@code id@host:controlPort:firstSlot-lastSlot,...}. */
    public ServerConfigBuilder clusterNodes(final String nodes)
    {
        return set("cluster.nodes", nodes);
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
