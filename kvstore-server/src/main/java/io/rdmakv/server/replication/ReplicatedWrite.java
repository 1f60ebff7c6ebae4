package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.handler.KeyBatch;
import io.rdmakv.server.handler.UnwrittenAnswer;
import io.rdmakv.transport.Endpoint;

/**
 * One client write on its way through {@link ReplicatingWritePath}: done when the local write path reported it and
 * every in-sync backup it was sent to acknowledged it or left the in-sync set. Request thread only.
 */
final class ReplicatedWrite
{
    final long sequence;
    final Endpoint endpoint;
    final long correlationId;
    final boolean delete;
    final int firstSlot;
    final long rangeEpoch;
    final long sentNanos;
    /** Backups still to acknowledge (node ids; -1 once acknowledged or removed from the in-sync set). */
    final int[] awaiting;
    int awaitingCount;

    boolean localDone;
    boolean existed;
    /** Copies, kept only when the local write finished before the backups (the key's two hashes with it). */
    byte[] key;
    long keyHash;
    int hashSlot;
    byte[] value;
    /** A failure to answer instead of OK (local STORE_ERROR, STALE_EPOCH, a backup that could not be removed). */
    Status failure;
    String failureReason;
    boolean finished;
    /** An atomic batch: answered as one ({@link #batchCopy} kept when the local write finished first). */
    boolean batch;
    KeyBatch batchCopy;
    /**
     * Not a write: the answer of a request that wrote nothing, held in order behind the writes before it
     * ({@link io.rdmakv.server.handler.WritePath#answerUnwritten}); {@link #failuresBefore}: the failures answered
     * before it was taken.
     */
    UnwrittenAnswer unwritten;
    long failuresBefore;

    ReplicatedWrite(final long sequence, final Endpoint endpoint, final long correlationId, final boolean delete,
        final int firstSlot, final long rangeEpoch, final long sentNanos, final int[] awaiting)
    {
        this.sequence = sequence;
        this.endpoint = endpoint;
        this.correlationId = correlationId;
        this.delete = delete;
        this.firstSlot = firstSlot;
        this.rangeEpoch = rangeEpoch;
        this.sentNanos = sentNanos;
        this.awaiting = awaiting;
        this.awaitingCount = awaiting.length;
    }

    /** Mark this write an atomic batch (or not); returns it. */
    ReplicatedWrite batch(final boolean isBatch)
    {
        this.batch = isBatch;
        return this;
    }

    /** Stop waiting for {@code nodeId}; returns whether it was awaited. */
    boolean release(final int nodeId)
    {
        for (int i = 0; i < awaiting.length; i++)
        {
            if (awaiting[i] == nodeId)
            {
                awaiting[i] = -1;
                awaitingCount--;
                return true;
            }
        }
        return false;
    }

    boolean awaits(final int nodeId)
    {
        for (final int n : awaiting)
        {
            if (n == nodeId)
            {
                return true;
            }
        }
        return false;
    }

    void fail(final Status status, final String reason)
    {
        if (failure == null)
        {
            failure = status;
            failureReason = reason;
        }
    }

    boolean isComplete()
    {
        return localDone && (awaitingCount == 0 || failure != null);
    }
}
