package io.rdmakv.server.pool;

import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.server.store.KeyValueBatch;
import io.rdmakv.server.store.RocksStore;
import org.agrona.DirectBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up warm-up: load keys from RocksDB into the pool until it is full, without evicting anything. When every key
 * fit, the pool header is marked COMPLETE, so clients may treat a one-sided miss as a definitive not-found.
 *
 * <p>RocksDB is read on a second thread ({@link StoreScanner}) into recycled batches while the calling thread, the
 * index's writer, copies the previous batch into the pool: the two halves run on two cores. Once
 * {@link #FULL_AFTER_REFUSALS} keys in a row found no room the pool is full: the scan stops there (reading the rest
 * of a store larger than the pool would only delay start-up) and the pool stays INCOMPLETE.
 */
public final class PoolWarmUp
{
    /** Consecutive keys refused by the pool after which warm-up considers it full and stops scanning. */
    public static final int FULL_AFTER_REFUSALS = 1024;
    /** Batches in circulation between the scan thread and the writer. */
    static final int BATCHES = 4;
    /** Smallest batch: large enough that the per-batch hand-over costs nothing next to the copying. */
    static final int MIN_BATCH_BYTES = 2 << 20;

    private static final Logger LOG = LoggerFactory.getLogger(PoolWarmUp.class);

    private PoolWarmUp()
    {
    }

    /**
     * Load {@code store} into {@code index} (on the index's writer thread, before serving).
     *
     * @return the outcome, also logged.
     */
    public static Result load(final RocksStore store, final PoolIndex index, final int maxKeyBytes, final int maxValueBytes)
    {
        final long start = System.nanoTime();
        final int batchBytes = (int)Math.min(Integer.MAX_VALUE - 8,
            Math.max(MIN_BATCH_BYTES, KeyValueBatch.ENTRY_HEADER_LENGTH + (long)maxKeyBytes + ValueRecord.HEADER_LENGTH + maxValueBytes));
        long loaded = 0;
        long loadedBytes = 0;
        long skipped = 0;
        long refusedInARow = 0;
        long writeNanos = 0;
        long maxDataVersion = 0;
        final long scannedKeys;
        final long scanNanos;
        final boolean scannedAll;
        try (StoreScanner scanner = new StoreScanner(store, batchBytes, BATCHES))
        {
            for (KeyValueBatch batch = scanner.take(); batch != null; batch = scanner.take())
            {
                final long writeStart = System.nanoTime();
                final DirectBuffer bytes = batch.buffer();
                for (int at = 0; at < batch.limit(); at = batch.next(at))
                {
                    final int keyLength = batch.keyLength(at);
                    final int recordLength = batch.valueLength(at);
                    final int valueLength = recordLength - ValueRecord.HEADER_LENGTH;
                    if (keyLength == 0 || keyLength > maxKeyBytes || valueLength > maxValueBytes)
                    {
                        skipped++; // written under other limits: served by RPC from RocksDB, never from the pool
                        continue;
                    }
                    maxDataVersion = Math.max(maxDataVersion, ValueRecord.dataVersion(bytes, batch.valueIndex(at)));
                    if (index.putRecord(bytes, batch.keyIndex(at), keyLength, bytes, batch.valueIndex(at),
                        recordLength, false) == PoolIndex.STORED)
                    {
                        loaded++;
                        loadedBytes += keyLength + valueLength;
                        refusedInARow = 0;
                    }
                    else
                    {
                        skipped++;
                        refusedInARow++;
                    }
                }
                writeNanos += System.nanoTime() - writeStart;
                scanner.release(batch);
                if (refusedInARow >= FULL_AFTER_REFUSALS)
                {
                    break;
                }
            }
            scannedAll = scanner.ended();
            scanner.stop();
            scannedKeys = scanner.keys();
            scanNanos = scanner.busyNanos();
            skipped += scanner.oversized();
        }
        final boolean complete = scannedAll && skipped == 0;
        if (complete)
        {
            index.markComplete();
        }
        else
        {
            index.markIncomplete();
        }
        // Stopped early, the scan counted only part of the store: RocksDB's own estimate says how much is left out.
        final long keysInStore = scannedAll ? scannedKeys : Math.max(scannedKeys, store.estimatedKeyCount());
        final Result result = new Result(scannedKeys, keysInStore, loaded, loadedBytes, complete, scannedAll,
            (System.nanoTime() - start) / 1_000_000, scanNanos / 1_000_000, writeNanos / 1_000_000,
            maxDataVersion);
        LOG.info("pool warm-up: {} of {}{} keys loaded ({} MiB) in {} ms (RocksDB scan {} ms, pool writes {} ms, " +
            "overlapped); pool {}", result.loaded(), scannedAll ? "" : "about ", result.keysInStore(),
            String.format("%.1f", loadedBytes / (double)(1 << 20)), result.millis(), result.scanMillis(),
            result.writeMillis(), complete ? "COMPLETE (one-sided misses are definitive)" : scannedAll ?
            "INCOMPLETE (misses fall back to RPC GET)" : "FULL: scan stopped after " + FULL_AFTER_REFUSALS +
            " refusals in a row, INCOMPLETE (misses fall back to RPC GET); a pool.size of about " +
            suggestedPoolMiB(index.geometry().poolSize(), loaded, keysInStore) + " MiB would hold every key");
        return result;
    }

    /** The pool size that would hold {@code keys} if {@code poolSize} holds {@code loaded}, rounded up to 64 MiB. */
    static long suggestedPoolMiB(final long poolSize, final long loaded, final long keys)
    {
        final double bytes = (double)poolSize * keys / Math.max(1, loaded);
        return (long)Math.ceil(bytes / (64L << 20)) * 64;
    }

    /**
     * @param keysScanned keys read from RocksDB: all of them when {@code scannedAll}, else up to where the pool filled.
     * @param keysInStore keys in RocksDB: counted when {@code scannedAll}, else RocksDB's estimate (at least the
     *                    keys scanned).
     * @param loaded      keys placed in the pool.
     * @param loadedBytes key and value bytes placed in the pool.
     * @param complete    every key is in the pool.
     * @param scannedAll  the scan reached the end of the store (false: stopped early, the pool was full).
     * @param millis      wall time of the warm-up.
     * @param scanMillis  time the scan thread spent reading RocksDB.
     * @param writeMillis time the writer spent writing extents and index slots (overlaps the scan).
     * @param maxDataVersion the highest data version of the records scanned (the node's versions start above it).
     */
    public record Result(long keysScanned, long keysInStore, long loaded, long loadedBytes, boolean complete,
                         boolean scannedAll, long millis, long scanMillis, long writeMillis, long maxDataVersion)
    {
    }
}
