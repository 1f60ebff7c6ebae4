package io.rdmakv.server.store;

/**
 * Completion of an asynchronous write submitted to {@link RocksStore#submitPut}, {@link RocksStore#submitDelete} or
 * {@link RocksStore#submitBatch} (an atomic batch completes once, through {@link #onWriteComplete}).
 * Runs on the committer thread (FSYNC) or on the submitting thread (DEFAULT); keep it short: hand the result to the
 * thread that owns the request.
 */
@FunctionalInterface
public interface WriteCallback
{
    /**
     * @param context the object passed at submission, returned untouched.
     * @param failure {@code null} when the write is durable per the store's {@link Durability}; the cause otherwise.
     */
    void onWriteComplete(Object context, StoreException failure);

    /**
     * Completion of a deletion: as {@link #onWriteComplete} plus whether the key existed just before it, in the order
     * writes were submitted (an earlier PUT still waiting for the same group commit counts as existing).
     *
     * @param existed meaningless when {@code failure} is not {@code null}.
     */
    default void onDeleteComplete(final Object context, final boolean existed, final StoreException failure)
    {
        onWriteComplete(context, failure);
    }
}
