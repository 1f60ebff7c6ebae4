package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.store.KeptRecords;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreBatch;
import io.rdmakv.server.store.StoreException;
import io.rdmakv.server.store.WriteCallback;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.function.Consumer;

/**
 * FSYNC durability: each write is copied (it must outlive the receive callback) and handed to the group committer;
 * the request thread never waits for a sync, and reports a write to its {@link WriteOutcome} once it is synced.
 * <pre>
 *   request thread:   put/delete -> copy of key (+ value) in a PendingWrite -> store.submitPut/Delete
 *                     batch -> a copy of the KeyBatch, its entries in a StoreBatch -> store.submitBatch (one unit)
 *                     (more than MAX_IN_FLIGHT_WRITES waiting, or the committer's queue full -> BUSY)
 *   committer thread: synced -> outcome (failure, whether a deleted key existed) into the PendingWrite
 *                     -> bounded MPSC queue -> wake the request thread
 *   request thread:   doWork() -> outcome.putDurable | deleteDurable(existed) | batchDurable
 *                     | failed(STORE_ERROR or DISK_FULL), in order
 *   answerUnwritten:  nothing with the committer -> answered at once; else held until the writes submitted before it
 *                     are reported (failed as BUSY if one of them failed)
 * </pre>
 * The committer decides a DELETE's existence in submission order (the pool lags the writes waiting for their sync).
 * Each write carries its records ({@link DurableRecords#toCarry}: its write id's answer, a replica's applied sequence,
 * removals waiting): the committer writes them in the write's group batch, so one synced WAL write holds both, as
 * DEFAULT's batches do; a write that fails writes neither.
 */
final class GroupCommitWritePath implements WritePath
{
    /** Writes waiting for group commit before new ones are answered BUSY. */
    static final int MAX_IN_FLIGHT_WRITES = 16_384;
    private static final int COMPLETIONS_PER_DRAIN = 256;

    private final RocksStore store;
    private final DurableRecords records;
    private final ServerCounters counters;
    private final WriteOutcome outcome;
    private final Runnable wakeUp;
    private final UnsafeBuffer keyView = new UnsafeBuffer(0, 0);
    /** A synced write's key copy, under the hashes it was decoded with. */
    private final HashedKey syncedKey = new HashedKey();
    private final UnsafeBuffer valueView = new UnsafeBuffer(0, 0);

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
    /** Answers of requests that wrote nothing, held behind writes still with the committer; oldest first. */
    private final java.util.ArrayDeque<Held> held = new java.util.ArrayDeque<>();
    /** Writes the committer accepted, and those reported (in submission order: the committer keeps it). */
    private long submitted;
    private long reported;
    /** The last reported write that failed, and how many have, since start. */
    private long failures;
    private Status lastFailure;
    private String lastFailureReason;

    /** A batch entry's key while its store key is made. */
    private final HashedKey batchEntryKey = new HashedKey();
    /** Tests: the batches submitted next fail while adding this entry (-1: never). */
    private int failBatchAfter = -1;

    /** An answer held until {@code reported} reaches {@code after}; {@code failuresBefore}: {@code failures} then. */
    private record Held(UnwrittenAnswer answer, long after, long failuresBefore)
    {
    }

    /**
     * @param wakeUp wakes the request thread when a write is durable (called on the committer thread).
     */
    GroupCommitWritePath(final RocksStore store, final ServerCounters counters, final WriteOutcome outcome,
        final Runnable wakeUp)
    {
        this(store, counters, outcome, wakeUp, DurableRecords.NONE);
    }

    /** As above; each write carries {@code records} to the committer, written in its group's batch. */
    GroupCommitWritePath(final RocksStore store, final ServerCounters counters, final WriteOutcome outcome,
        final Runnable wakeUp, final DurableRecords records)
    {
        this.store = store;
        this.records = records;
        this.counters = counters;
        this.outcome = outcome;
        this.wakeUp = wakeUp;
    }

    @Override
    public void put(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key, final DirectBuffer value, final int valueIndex, final int valueLength)
    {
        final byte[] copy = new byte[valueLength];
        value.getBytes(valueIndex, copy);
        submit(endpoint, correlationId, key, copy, records.toCarry(value, valueIndex, valueLength));
    }

    /** The committer decides existence in submission order (the pool lags the writes waiting for their sync). */
    @Override
    public void delete(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key)
    {
        submit(endpoint, correlationId, key, null, records.toCarry(null, 0, 0));
    }

    /**
     * At once when no write is with the committer; else held until every write submitted before it is reported (the
     * decision read RocksDB, where the committer put them before their sync was reported and the pool followed).
     */
    @Override
    public void answerUnwritten(final Endpoint endpoint, final long correlationId, final HashedKey key,
        final Status status, final long dataVersion, final long expiryMillis, final String reason)
    {
        if (reported == submitted)
        {
            outcome.unwritten(endpoint, correlationId, status, dataVersion, expiryMillis, reason);
            return;
        }
        held.add(new Held(new UnwrittenAnswer(endpoint, correlationId, status, dataVersion, expiryMillis, reason),
            submitted, failures));
    }

    /**
     * An atomic multi-key write: copied (it must outlive the call) and handed to the committer as ONE unit
     * ({@link StoreBatch}): every entry joins the write batch of one group commit, synced with it and never split
     * across two; a group that fails applies none of it (answered STORE_ERROR or DISK_FULL). Completed through the
     * same queue as the PUTs and DELETEs, so in submission order with them (an answer held behind it waits for it),
     * and reported once ({@link WriteOutcome#batchDurable}). Bounded as a PUT: BUSY when too many writes wait or the
     * queue is full. Its records ({@link DurableRecords}) go into the same group batch, as a PUT's do.
     */
    @Override
    public void batch(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final KeyBatch batch)
    {
        if (inFlightWrites >= MAX_IN_FLIGHT_WRITES)
        {
            counters.increment(ServerCounter.BUSY);
            outcome.failed(endpoint, correlationId, Status.BUSY, "too many writes waiting for sync");
            return;
        }
        final KeyBatch copy = batch.copy();
        final StoreBatch entries = new StoreBatch(copy.count());
        for (int i = 0; i < copy.count(); i++)
        {
            final HashedKey key = copy.key(i, batchEntryKey);
            if (copy.isPut(i))
            {
                final byte[] record = new byte[copy.valueLength(i)];
                copy.buffer().getBytes(copy.valueIndex(i), record);
                entries.put(key, record);
            }
            else
            {
                entries.delete(key);
            }
        }
        entries.failWhileAdding(failBatchAfter);
        final KeptRecords kept = records.toCarry(null, 0, 0);
        submitted(endpoint, correlationId,
            store.submitBatch(entries, kept, new PendingWrite(endpoint, correlationId, copy), committed), kept);
    }

    /** Tests: the next batches fail while adding entry {@code entry} (-1: never), nothing written. */
    void failBatchAfter(final int entry)
    {
        failBatchAfter = entry;
    }

    @Override
    public int flush()
    {
        return 0; // every write is with the committer already
    }

    @Override
    public int doWork()
    {
        return completions.drain(completionHandler, COMPLETIONS_PER_DRAIN);
    }

    @Override
    public void close()
    {
        // The store's committer fails what it still has when the store closes; answers held behind those writes stay
        // unanswered with them (their connections end with the node).
    }

    /** Hand a PUT ({@code value} non-null) or a DELETE ({@code value} null) and its records to the committer. */
    private void submit(final Endpoint endpoint, final long correlationId, final HashedKey key, final byte[] value,
        final KeptRecords kept)
    {
        if (inFlightWrites >= MAX_IN_FLIGHT_WRITES)
        {
            counters.increment(ServerCounter.BUSY);
            outcome.failed(endpoint, correlationId, Status.BUSY, "too many writes waiting for sync");
            return;
        }
        final PendingWrite pending = new PendingWrite(endpoint, correlationId, key.copyBytes(), key.hash(),
            key.hashSlot(), value);
        submitted(endpoint, correlationId, value == null ?
            store.submitDelete(key, kept, pending, committed) :
            store.submitPut(key, value, kept, pending, committed), kept);
    }

    /**
     * Count a write the committer {@code accepted} (the removals its {@code kept} carries are no longer waiting), or
     * answer it BUSY (its queue was full: the removals wait for the next write).
     */
    private void submitted(final Endpoint endpoint, final long correlationId, final boolean accepted,
        final KeptRecords kept)
    {
        if (!accepted)
        {
            counters.increment(ServerCounter.BUSY);
            outcome.failed(endpoint, correlationId, Status.BUSY, "write queue full");
            return;
        }
        if (kept != null)
        {
            records.carried();
        }
        inFlightWrites++;
        submitted++;
        counters.increment(ServerCounter.IN_FLIGHT_WRITES);
    }

    /** The writes handed to the committer so far (they are reported in that order). */
    @Override
    public long acceptedMark()
    {
        return submitted;
    }

    @Override
    public boolean reportedThrough(final long mark)
    {
        return reported >= mark;
    }

    /** Writes handed to group commit and not answered yet. */
    @Override
    public int inFlightWrites()
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
        report(pending);
        reported++;
        while (!held.isEmpty() && held.peek().after() <= reported)
        {
            final Held h = held.poll();
            if (failures != h.failuresBefore())
            {
                h.answer().fail(outcome, lastFailure, lastFailureReason);
            }
            else
            {
                h.answer().answer(outcome);
            }
        }
    }

    private void report(final PendingWrite pending)
    {
        inFlightWrites--;
        counters.decrement(ServerCounter.IN_FLIGHT_WRITES);
        if (pending.failure != null)
        {
            failures++;
            lastFailure = ResponseSender.storeStatus(pending.failure);
            lastFailureReason = pending.failure.getMessage();
            outcome.failed(pending.endpoint, pending.correlationId, lastFailure, lastFailureReason);
            return;
        }
        if (pending.batch != null)
        {
            outcome.batchDurable(pending.endpoint, pending.correlationId, pending.batch);
            return;
        }
        keyView.wrap(pending.key);
        syncedKey.wrapHashed(keyView, 0, pending.key.length, pending.keyHash, pending.hashSlot);
        if (pending.value == null)
        {
            outcome.deleteDurable(pending.endpoint, pending.correlationId, syncedKey, pending.existed);
            return;
        }
        valueView.wrap(pending.value);
        outcome.putDurable(pending.endpoint, pending.correlationId, syncedKey, valueView, 0, pending.value.length);
    }
}
