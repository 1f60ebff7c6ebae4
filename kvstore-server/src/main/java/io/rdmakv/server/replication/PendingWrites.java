package io.rdmakv.server.replication;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.handler.KeyBatch;
import io.rdmakv.server.handler.UnwrittenAnswer;
import io.rdmakv.server.handler.WriteOutcome;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The writes of a {@link ReplicatingWritePath} not answered yet, and the rule that answers them: a write reaches the
 * pool and its client in arrival order only (the pool never goes back to an older value of a key), once its local
 * write and every replica it waits for have it.
 *
 * <pre>
 *   localOrder  every write handed to the local path, in submission order: the local path reports in that order
 *               (LOCAL_ONLY for a write no replica needs: its report passes straight through, no allocation)
 *   inOrder     every replicated write not answered yet, in arrival order
 *   bySequence  the writes sent to replicas, by REPLICATE correlation id (the write's sequence)
 *
 *   local report -> complete and first in order? answer from the local path's buffers
 *                                              : keep copies of key and value -> drainCompleted
 *   drainCompleted: answer (outcome) the complete writes at the head of inOrder, in order
 *   unwritten answer (a request that wrote nothing): in both orders like a write, answered at the head of inOrder
 *               (failed retryably when a write answered since it was taken failed)
 * </pre>
 * Request thread only.
 */
final class PendingWrites
{
    /** A write no replica needs: the local outcome passes straight through (no allocation). */
    private static final int[] NONE = new int[0];
    private static final ReplicatedWrite LOCAL_ONLY = new ReplicatedWrite(0, null, 0, false, 0, 0, 0, NONE);

    private final WriteOutcome outcome;
    private final WriteOutcome localOutcome = new LocalOutcome();
    private final ArrayDeque<ReplicatedWrite> localOrder = new ArrayDeque<>();
    /** Every write not answered yet, in arrival order: they are answered (and reach the pool) in this order only. */
    private final ArrayDeque<ReplicatedWrite> inOrder = new ArrayDeque<>();
    private final Long2ObjectHashMap<ReplicatedWrite> bySequence = new Long2ObjectHashMap<>();
    /** A kept copy's key, under the hashes it was decoded with. */
    private final HashedKey keptKey = new HashedKey();
    /** Writes answered failed since start, and the last one's failure (a held unwritten answer fails after one). */
    private long failures;
    private Status lastFailure;
    private String lastFailureReason;

    /** @param outcome pool update and answer, for writes every in-sync replica has. */
    PendingWrites(final WriteOutcome outcome)
    {
        this.outcome = outcome;
    }

    /** Where the writes every in-sync replica has go: pool update and answer. */
    WriteOutcome outcome()
    {
        return outcome;
    }

    /** Where the local write path reports (in submission order). */
    WriteOutcome localOutcome()
    {
        return localOutcome;
    }

    /** A write that goes to the local path only, handed to it next. */
    void addLocalOnly()
    {
        localOrder.add(LOCAL_ONLY);
    }

    /** A write that waits for replicas (or is ordered behind writes that do), handed to the local path next. */
    void add(final ReplicatedWrite write)
    {
        localOrder.add(write);
        inOrder.add(write);
    }

    /**
     * The answer of a request that wrote nothing, ordered behind every write taken before it (handed to the local path
     * next, which reports it in order too): answered when it reaches the head, failed if a write answered before it
     * since now failed.
     */
    void addUnwritten(final UnwrittenAnswer answer)
    {
        final ReplicatedWrite w = new ReplicatedWrite(0, answer.endpoint(), answer.correlationId(), false, 0, 0,
            System.nanoTime(), NONE);
        w.unwritten = answer;
        w.failuresBefore = failures;
        add(w);
    }

    /** {@code write} was sent to replicas under its sequence: their answers find it by {@link #sent}. */
    void track(final ReplicatedWrite write)
    {
        bySequence.put(write.sequence, write);
    }

    /** The write sent under {@code sequence}, or null once answered. */
    ReplicatedWrite sent(final long sequence)
    {
        return bySequence.get(sequence);
    }

    /** Every write sent to replicas and not answered yet (a copy: callers may answer some while iterating). */
    List<ReplicatedWrite> sentWrites()
    {
        return new ArrayList<>(bySequence.values());
    }

    /** How many writes sent to replicas are not answered yet. */
    int sentCount()
    {
        return bySequence.size();
    }

    /** The oldest write not answered yet, or null. */
    ReplicatedWrite oldest()
    {
        return inOrder.peek();
    }

    /** The oldest write the local path has not reported yet, or null. */
    ReplicatedWrite oldestLocal()
    {
        return localOrder.peek();
    }

    /** Whether no replicated write waits for its answer. */
    boolean isEmpty()
    {
        return inOrder.isEmpty();
    }

    /** Answer the writes at the head of the arrival order that are complete (in order: the pool never goes back). */
    void drainCompleted()
    {
        ReplicatedWrite w;
        while ((w = inOrder.peek()) != null && w.isComplete())
        {
            inOrder.poll();
            finish(w);
        }
    }

    private void finish(final ReplicatedWrite w)
    {
        w.finished = true;
        bySequence.remove(w.sequence);
        if (w.failure != null)
        {
            countFailure(w.failure, w.failureReason);
            outcome.failed(w.endpoint, w.correlationId, w.failure, w.failureReason);
            return;
        }
        if (w.unwritten != null)
        {
            if (failures != w.failuresBefore)
            {
                w.unwritten.fail(outcome, lastFailure, lastFailureReason);
            }
            else
            {
                w.unwritten.answer(outcome);
            }
            return;
        }
        if (w.batch)
        {
            outcome.batchDurable(w.endpoint, w.correlationId, w.batchCopy);
            return;
        }
        final HashedKey k = keptKey.wrapHashed(new UnsafeBuffer(w.key), 0, w.key.length, w.keyHash, w.hashSlot);
        if (w.delete)
        {
            outcome.deleteDurable(w.endpoint, w.correlationId, k, w.existed);
        }
        else
        {
            outcome.putDurable(w.endpoint, w.correlationId, k, new UnsafeBuffer(w.value), 0, w.value.length);
        }
    }

    private void countFailure(final Status status, final String reason)
    {
        failures++;
        lastFailure = status;
        lastFailureReason = reason;
    }

    /** Whether {@code w}, its local write just reported, can be answered at once (from the local buffers). */
    private boolean answerableNow(final ReplicatedWrite w)
    {
        if (w.failure == null && w.awaitingCount == 0 && inOrder.peek() == w)
        {
            inOrder.poll();
            w.finished = true;
            bySequence.remove(w.sequence);
            return true;
        }
        return false;
    }

    /** The local path's reports, in submission order: pass through, or keep copies until the backups answer. */
    private final class LocalOutcome implements WriteOutcome
    {
        @Override
        public void putDurable(final Endpoint endpoint, final long correlationId, final HashedKey key,
            final DirectBuffer value, final int valueIndex, final int valueLength)
        {
            final ReplicatedWrite w = localOrder.poll();
            if (w == LOCAL_ONLY)
            {
                outcome.putDurable(endpoint, correlationId, key, value, valueIndex, valueLength);
                return;
            }
            w.localDone = true;
            if (answerableNow(w))
            {
                outcome.putDurable(endpoint, correlationId, key, value, valueIndex, valueLength);
                drainCompleted();
                return;
            }
            keep(w, key);
            w.value = new byte[valueLength];
            value.getBytes(valueIndex, w.value);
            drainCompleted();
        }

        @Override
        public void deleteDurable(final Endpoint endpoint, final long correlationId, final HashedKey key,
            final boolean existed)
        {
            final ReplicatedWrite w = localOrder.poll();
            if (w == LOCAL_ONLY)
            {
                outcome.deleteDurable(endpoint, correlationId, key, existed);
                return;
            }
            w.localDone = true;
            w.existed = existed;
            if (answerableNow(w))
            {
                outcome.deleteDurable(endpoint, correlationId, key, existed);
                drainCompleted();
                return;
            }
            keep(w, key);
            drainCompleted();
        }

        @Override
        public void batchDurable(final Endpoint endpoint, final long correlationId, final KeyBatch batch)
        {
            final ReplicatedWrite w = localOrder.poll();
            if (w == LOCAL_ONLY)
            {
                outcome.batchDurable(endpoint, correlationId, batch);
                return;
            }
            w.localDone = true;
            if (answerableNow(w))
            {
                outcome.batchDurable(endpoint, correlationId, batch);
                drainCompleted();
                return;
            }
            w.batchCopy = batch.copy();
            drainCompleted();
        }

        @Override
        public void unwritten(final Endpoint endpoint, final long correlationId, final Status status,
            final long dataVersion, final long expiryMillis, final String reason)
        {
            final ReplicatedWrite w = localOrder.poll();
            if (w == LOCAL_ONLY)
            {
                outcome.unwritten(endpoint, correlationId, status, dataVersion, expiryMillis, reason);
                return;
            }
            w.localDone = true; // the local path's order reached it: answered from the head of the arrival order
            drainCompleted();
        }

        /** A copy of the key's bytes and its two hashes, for the answer once the backups have the write. */
        private void keep(final ReplicatedWrite w, final HashedKey key)
        {
            w.key = key.copyBytes();
            w.keyHash = key.hash();
            w.hashSlot = key.hashSlot();
        }

        @Override
        public void failed(final Endpoint endpoint, final long correlationId, final Status status, final String reason)
        {
            final ReplicatedWrite w = localOrder.poll();
            if (w == LOCAL_ONLY)
            {
                countFailure(status, reason);
                outcome.failed(endpoint, correlationId, status, reason);
                return;
            }
            w.localDone = true;
            w.failure = status;
            w.failureReason = reason;
            drainCompleted();
        }
    }
}
