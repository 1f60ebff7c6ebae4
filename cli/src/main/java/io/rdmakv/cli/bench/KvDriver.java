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
     * The store's own counters, summed over its nodes (for rdmakv: every numeric value of every node's STATS, such as
     * {@code gets.rpc}), read by one request to each node over a connection of their own (so that request is not
     * among {@link #counters()}); empty when the store has none or did not answer. The run reads them just before
     * and just after its measured phase, inside the window of {@link #counters()}.
     *
     * @return counter name to value; may be empty.
     */
    default Map<String, Long> serverCounters()
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
