package io.rdmakv.server.store;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link WriteCallback} its caller blocks on: the blocking {@link RocksStore#put(byte[], byte[])} and
 * {@link RocksStore#delete(byte[])} submit their write with one and wait, at most {@value #TIMEOUT_SECONDS} s, until
 * the group commit (FSYNC) synced it. Completed once, on the committer thread (or the caller's, DEFAULT); awaited
 * on the caller's thread.
 */
final class CommitWait implements WriteCallback
{
    static final long TIMEOUT_SECONDS = 60;

    private final CompletableFuture<Void> done = new CompletableFuture<>();

    @Override
    public void onWriteComplete(final Object context, final StoreException failure)
    {
        if (failure == null)
        {
            done.complete(null);
        }
        else
        {
            done.completeExceptionally(failure);
        }
    }

    /**
     * Wait until the write completed.
     *
     * @throws StoreException when it failed, did not complete in time, or the caller was interrupted.
     */
    void await()
    {
        try
        {
            done.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw ex.getCause() instanceof StoreException se ? se : new StoreException("write failed", ex.getCause());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for the write to be synced", ex);
        }
        catch (final TimeoutException ex)
        {
            throw new StoreException("write not synced within " + TIMEOUT_SECONDS + " s", ex);
        }
    }
}
