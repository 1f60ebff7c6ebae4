package io.rdmakv.server.handler;

import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.server.store.DataVersions;
import io.rdmakv.server.store.RocksStore;

/**
 * What a node's write paths are built from, fixed at start: the store, the pool index (written on the request thread
 * only), the counters, the request limits, the one {@link ResponseSender} of the request thread and the wake-up of
 * that thread. The node builds it first and hands it to what assembles the write-path chain and to the
 * {@link RequestHandler}.
 *
 * @param wakeUp   wakes the request thread (from any thread) when a write needs its duty cycle.
 * @param versions the data versions this node issues as a primary and observes as a replica (request thread).
 */
public record NodeWrites(RocksStore store, PoolIndex index, ServerCounters counters, Limits limits,
    ResponseSender responses, Runnable wakeUp, DataVersions versions)
{
    /** Parts whose data versions carry node id 0 in their low bits (single-node tests). */
    public NodeWrites(final RocksStore store, final PoolIndex index, final ServerCounters counters, final Limits limits,
        final ResponseSender responses, final Runnable wakeUp)
    {
        this(store, index, counters, limits, responses, wakeUp, new DataVersions(0));
    }

    /**
     * A local path of the store's durability ({@link WritePaths#local}) reporting to {@code outcome}; it writes
     * {@code records} in the batches of the writes they describe (under either durability).
     */
    public WritePath localPath(final WriteOutcome outcome, final DurableRecords records)
    {
        return WritePaths.local(store, index, counters, limits, outcome, wakeUp, records);
    }

    /** The outcome of a write finished on this node: the pool updated, then the client answered. */
    public WriteOutcome poolAndAnswer()
    {
        return new PoolAndAnswer(index, counters, responses);
    }
}
