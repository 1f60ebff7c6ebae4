package io.rdmakv.server.handler;

import io.rdmakv.server.store.StoreException;
import io.rdmakv.transport.Endpoint;

/**
 * A write of the {@link RequestHandler} handed to group commit (FSYNC, {@link GroupCommitWritePath}), waiting for its
 * sync before the pool is updated and the client answered. Allocated per FSYNC write: the sync dominates its cost.
 * Written by the committer thread before it is queued back to the request thread (the queue orders the two).
 */
final class PendingWrite
{
    final Endpoint endpoint;
    final long correlationId;
    final byte[] key;
    /** The key's two hashes, from its decode ({@link io.rdmakv.protocol.layout.HashedKey}). */
    final long keyHash;
    final int hashSlot;
    /** {@code null} for a DELETE (and an atomic batch). */
    final byte[] value;
    /** An atomic multi-key write's own copy (then key and value are null), or null. */
    final KeyBatch batch;
    StoreException failure;
    /** DELETE only: whether the key existed just before the deletion (set by the committer). */
    boolean existed;

    PendingWrite(final Endpoint endpoint, final long correlationId, final byte[] key, final long keyHash,
        final int hashSlot, final byte[] value)
    {
        this.endpoint = endpoint;
        this.correlationId = correlationId;
        this.key = key;
        this.keyHash = keyHash;
        this.hashSlot = hashSlot;
        this.value = value;
        this.batch = null;
    }

    /** An atomic multi-key write, {@code batch} its own copy ({@link KeyBatch#copy}). */
    PendingWrite(final Endpoint endpoint, final long correlationId, final KeyBatch batch)
    {
        this.endpoint = endpoint;
        this.correlationId = correlationId;
        this.key = null;
        this.keyHash = 0;
        this.hashSlot = batch.hashSlot();
        this.value = null;
        this.batch = batch;
    }
}
