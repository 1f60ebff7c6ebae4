package io.rdmakv.cli.bench;

import java.util.Map;

/**
 * A store the load generator can drive: rdmakv through its {@code KvClient}, redis-server through RESP, memcached
 * through its text protocol. Everything above the driver (key choice, mix, pipelining, timing) is shared, so the
 * numbers of different stores come from the same generator.
 */
public interface KvDriver extends AutoCloseable
{
    /** Short name printed in reports: rdmakv, resp, memcached. */
    String name();

    /** Open one connection (for rdmakv: one client with its own data connection). */
    DriverConnection connect();

    /** Driver counters to report (for rdmakv: how GETs were served), summed over its connections; may be empty. */
    default Map<String, Long> counters()
    {
        return Map.of();
    }

    /**
     * Refuse a key or value size the store cannot hold, before anything is generated (for rdmakv: the node's limits,
     * learned by connecting).
     *
     * @throws BenchException naming the option, the size and the store's limit.
     */
    void checkSizes(int keySize, int valueSize);

    /** One line about what the driver talks to (transport, address), for the report header. */
    String describe();

    @Override
    void close();
}
