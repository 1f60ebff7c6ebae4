package io.rdmakv.server.pool;

import io.rdmakv.server.store.RocksStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up warm-up: load keys from RocksDB into the pool until it is full, without evicting anything. When every key
 * fit, the pool header is marked COMPLETE, so clients may treat a one-sided miss as a definitive not-found.
 */
public final class PoolWarmUp
{
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
        final long[] counts = new long[3]; // seen, loaded, skipped
        store.forEach((key, value) ->
        {
            counts[0]++;
            if (key.length == 0 || key.length > maxKeyBytes || value.length > maxValueBytes)
            {
                counts[2]++; // written under other limits: served by RPC from RocksDB, never from the pool
                return true;
            }
            if (index.put(key, value, false) == PoolIndex.STORED)
            {
                counts[1]++;
            }
            else
            {
                counts[2]++;
            }
            return true;
        });
        final boolean complete = counts[2] == 0;
        if (complete)
        {
            index.markComplete();
        }
        else
        {
            index.markIncomplete();
        }
        final Result result = new Result(counts[0], counts[1], complete, (System.nanoTime() - start) / 1_000_000);
        LOG.info("pool warm-up: {} of {} keys loaded in {} ms; pool {}", result.loaded(), result.keysInStore(),
            result.millis(), complete ? "COMPLETE (one-sided misses are definitive)" :
            "INCOMPLETE (misses fall back to RPC GET)");
        return result;
    }

    /**
     * @param keysInStore keys found in RocksDB.
     * @param loaded      keys placed in the pool.
     * @param complete    every key is in the pool.
     * @param millis      time taken.
     */
    public record Result(long keysInStore, long loaded, boolean complete, long millis)
    {
    }
}
