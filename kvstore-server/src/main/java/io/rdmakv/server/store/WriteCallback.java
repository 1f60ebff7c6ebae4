package io.rdmakv.server.store;

/**
 * Completion of an asynchronous write submitted to {@link RocksStore#submitPut} or {@link RocksStore#submitDelete}.
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
}
