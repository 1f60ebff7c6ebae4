package io.rdmakv.server.handler;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreException;
import io.rdmakv.server.store.WriteCallback;
import io.rdmakv.transport.Endpoint;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.util.function.Consumer;

/**
 * FSYNC durability: the writes of the {@link RequestHandler} handed to the group committer, and their way back. The
 * request thread never waits for a sync; the pool and the answer always follow the durable write.
 * <pre>
 *   request thread:   submit(PUT | DELETE) -> copy of key (+ value) in a PendingWrite -> store.submitPut/Delete
 *                     (more than MAX_IN_FLIGHT_WRITES waiting, or the committer's queue full -> BUSY)
 *   committer thread: synced -> outcome (failure, whether a deleted key existed) into the PendingWrite
 *                     -> bounded MPSC queue -> wake the request thread
 *   request thread:   drain() -> PUT: pool (fresh extent) -> OK + location | DELETE: pool (slot := 0) -> OK or
 *                     NOT_FOUND | failure: STORE_ERROR
 * </pre>
 * The committer decides a DELETE's existence in submission order (the pool lags the writes waiting for their sync).
 */
final class GroupCommitWrites
{
    /** Writes waiting for group commit before new ones are answered BUSY. */
    static final int MAX_IN_FLIGHT_WRITES = 16_384;
    private static final int COMPLETIONS_PER_DRAIN = 256;

    private final RocksStore store;
    private final PoolIndex index;
    private final ServerCounters counters;
    private final int maxPoolValueBytes;
    private final ResponseSender responses;
    private final Runnable wakeUp;

    private final ManyToOneConcurrentArrayQueue<PendingWrite> completions =
        new ManyToOneConcurrentArrayQueue<>(2 * MAX_IN_FLIGHT_WRITES);
    private final Consumer<PendingWrite> completionHandler = this::onWriteDurable;
    private final WriteCallback committed = new WriteCallback()
    {
        @Override
        public void onWriteComplete(final Object context, final StoreException failure)
        {
            onCommitted(context, false, failure);
        }

        @Override
        public void onDeleteComplete(final Object context, final boolean existed, final StoreException failure)
        {
            onCommitted(context, existed, failure);
        }
    };
    private int inFlightWrites;

    /**
     * @param maxPoolValueBytes longest value placed in the pool.
     * @param wakeUp            wakes the request thread when a write is durable (called on the committer thread).
     */
    GroupCommitWrites(final RocksStore store, final PoolIndex index, final ServerCounters counters,
        final int maxPoolValueBytes, final ResponseSender responses, final Runnable wakeUp)
    {
        this.store = store;
        this.index = index;
        this.counters = counters;
        this.maxPoolValueBytes = maxPoolValueBytes;
        this.responses = responses;
        this.wakeUp = wakeUp;
    }

    /** Request thread: hand a PUT ({@code value} non-null) or a DELETE ({@code value} null) to the committer. */
    void submit(final Endpoint endpoint, final long correlationId, final byte[] key, final byte[] value)
    {
        if (inFlightWrites >= MAX_IN_FLIGHT_WRITES)
        {
            counters.increment(ServerCounter.BUSY);
            responses.answerError(endpoint, correlationId, Status.BUSY, "too many writes waiting for sync");
            return;
        }
        final PendingWrite pending = new PendingWrite(endpoint, correlationId, key, value);
        final boolean accepted = value == null ?
            store.submitDelete(key, pending, committed) :
            store.submitPut(key, value, pending, committed);
        if (!accepted)
        {
            counters.increment(ServerCounter.BUSY);
            responses.answerError(endpoint, correlationId, Status.BUSY, "write queue full");
            return;
        }
        inFlightWrites++;
        counters.increment(ServerCounter.IN_FLIGHT_WRITES);
    }

    /** Request thread: update the pool and answer for writes that became durable; returns how many. */
    int drain()
    {
        return completions.drain(completionHandler, COMPLETIONS_PER_DRAIN);
    }

    /** Writes handed to group commit and not answered yet. */
    int inFlightWrites()
    {
        return inFlightWrites;
    }

    /** On the committer thread: hand the outcome to the request thread. */
    private void onCommitted(final Object context, final boolean existed, final StoreException failure)
    {
        final PendingWrite pending = (PendingWrite)context;
        pending.failure = failure;
        pending.existed = existed;
        while (!completions.offer(pending))
        {
            // Bounded by MAX_IN_FLIGHT_WRITES < capacity: cannot stay full.
            Thread.onSpinWait();
        }
        wakeUp.run();
    }

    private void onWriteDurable(final PendingWrite pending)
    {
        inFlightWrites--;
        counters.decrement(ServerCounter.IN_FLIGHT_WRITES);
        if (pending.failure != null)
        {
            responses.answerStoreFailure(pending.endpoint, pending.correlationId, pending.failure);
            return;
        }
        if (pending.value == null)
        {
            index.remove(pending.key);
            if (!pending.existed)
            {
                counters.increment(ServerCounter.DELETES_NOT_FOUND);
            }
            responses.answer(pending.endpoint, pending.correlationId, pending.existed ? Status.OK : Status.NOT_FOUND,
                0, 0);
            return;
        }
        long version = 0;
        if (pending.value.length <= maxPoolValueBytes)
        {
            version = index.put(pending.key, pending.value, true) == PoolIndex.STORED ? index.lastVersion() : 0;
            if (version == 0)
            {
                counters.increment(ServerCounter.NOT_CACHED);
            }
        }
        responses.answer(pending.endpoint, pending.correlationId, Status.OK, version,
            version != 0 ? index.lastSlot() : 0);
    }
}
