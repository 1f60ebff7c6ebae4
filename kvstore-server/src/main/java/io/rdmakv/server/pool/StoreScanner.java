package io.rdmakv.server.pool;

import io.rdmakv.server.store.KeyValueBatch;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreException;
import io.rdmakv.server.store.StoreScan;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Reads the whole store on its own thread into a few recycled {@link KeyValueBatch}es, so that RocksDB's scan and
 * the pool writer (the caller of {@link #take()}) run on two cores at once during warm-up.
 *
 * <pre>
 *   scan thread:   free.take() -> StoreScan.fill(batch) -> full.put(batch) -> ... -> full.put(END)
 *   pool writer:   full.take() -> write every entry into the pool -> release(batch) = free.put(batch)
 * </pre>
 * The queues are the hand-over (happens-before) of a batch's bytes. {@link #close()} stops the scan early (the pool
 * is full) or after the end, and joins the thread.
 */
final class StoreScanner implements AutoCloseable
{
    private static final KeyValueBatch END = new KeyValueBatch(KeyValueBatch.ENTRY_HEADER_LENGTH + 1);

    private final BlockingQueue<KeyValueBatch> free;
    private final BlockingQueue<KeyValueBatch> full;
    private final Thread thread;
    private volatile boolean stop;
    private volatile Throwable failure;
    private volatile long keys;
    private volatile long oversized;
    private volatile long busyNanos;
    private boolean ended;

    /**
     * Start scanning {@code store}.
     *
     * @param batchCapacity bytes per batch: entries larger than this minus a header are skipped as oversized.
     * @param batches       batches in circulation (at least 2, so scanning and writing overlap).
     */
    StoreScanner(final RocksStore store, final int batchCapacity, final int batches)
    {
        if (batches < 2)
        {
            throw new IllegalArgumentException("at least 2 batches: " + batches);
        }
        free = new ArrayBlockingQueue<>(batches);
        full = new ArrayBlockingQueue<>(batches + 1);
        for (int i = 0; i < batches; i++)
        {
            free.add(new KeyValueBatch(batchCapacity));
        }
        final StoreScan scan = store.scan();
        thread = new Thread(() -> run(scan), "rdmakv-warmup-scan");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * The next batch of entries, or null after the last one.
     *
     * @throws StoreException when the scan failed.
     */
    KeyValueBatch take()
    {
        if (ended)
        {
            return null;
        }
        final KeyValueBatch batch;
        try
        {
            batch = full.take();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for the store scan", ex);
        }
        if (batch == END)
        {
            ended = true;
            final Throwable t = failure;
            if (t != null)
            {
                throw t instanceof StoreException se ? se : new StoreException("store scan failed: " + t, t);
            }
            return null;
        }
        return batch;
    }

    /** Give a batch back for refilling. */
    void release(final KeyValueBatch batch)
    {
        free.add(batch); // never blocks: at most the batches in circulation are ever queued
    }

    /** Keys the scan visited (after {@link #close()}: in total). */
    long keys()
    {
        return keys;
    }

    /** Entries skipped because they exceed a batch (and so the server's key or value limit). */
    long oversized()
    {
        return oversized;
    }

    /** Time the scan thread spent reading RocksDB (not waiting for free batches). */
    long busyNanos()
    {
        return busyNanos;
    }

    /** True when the scan visited every key (false after an early {@link #close()}). */
    boolean ended()
    {
        return ended;
    }

    /** Stop the scan if it is still running and wait for its thread. Idempotent. */
    @Override
    public void close()
    {
        stop();
    }

    /** As {@link #close()}: afterwards {@link #keys()} and {@link #busyNanos()} are final. */
    void stop()
    {
        stop = true;
        thread.interrupt();
        try
        {
            thread.join();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void run(final StoreScan scan)
    {
        long busy = 0;
        try (scan)
        {
            boolean more = true;
            while (more && !stop)
            {
                final KeyValueBatch batch = free.take();
                batch.clear();
                final long start = System.nanoTime();
                more = scan.fill(batch);
                busy += System.nanoTime() - start;
                oversized += batch.oversized();
                keys = scan.keys();
                busyNanos = busy;
                full.put(batch);
            }
        }
        catch (final InterruptedException ex)
        {
            if (!stop)
            {
                failure = ex;
            }
        }
        catch (final RuntimeException | Error ex)
        {
            failure = ex;
        }
        finally
        {
            full.offer(END); // room for it: full holds at most every batch plus END
        }
    }
}
