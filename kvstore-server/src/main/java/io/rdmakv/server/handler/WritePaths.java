package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.server.store.RocksStore;

/** Chooses the local {@link WritePath} once, from the store's durability. */
public final class WritePaths
{
    private WritePaths()
    {
    }

    /**
     * DEFAULT durability: {@link InlineBatchWritePath}; FSYNC: {@link GroupCommitWritePath}.
     *
     * @param outcome where each finished write goes.
     * @param wakeUp  wakes the request thread (from any thread) when a write needs its duty cycle.
     */
    public static WritePath local(final RocksStore store, final PoolIndex index, final ServerCounters counters,
        final Limits limits, final WriteOutcome outcome, final Runnable wakeUp)
    {
        return local(store, index, counters, limits, outcome, wakeUp, DurableRecords.NONE);
    }

    /**
     * As above; the path writes {@code records} in the batches of the writes they describe (FSYNC: each write carries
     * them to the group committer).
     */
    public static WritePath local(final RocksStore store, final PoolIndex index, final ServerCounters counters,
        final Limits limits, final WriteOutcome outcome, final Runnable wakeUp, final DurableRecords records)
    {
        return store.writesInline() ?
            new InlineBatchWritePath(store, outcome, limits.maxKeyBytes(),
                ValueRecord.HEADER_LENGTH + limits.maxValueBytes(), wakeUp,
                records) :
            new GroupCommitWritePath(store, counters, outcome, wakeUp, records);
    }
}
