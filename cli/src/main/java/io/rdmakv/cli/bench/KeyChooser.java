package io.rdmakv.cli.bench;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Picks the index of the key an operation touches. One instance per thread (each owns its random source); the
 * Zipfian constants are shared. Indexes map to key bytes through {@link KeySpace}.
 */
public interface KeyChooser
{
    /** The next key index. */
    long next();

    /** Every index in {@code [0, keys)} equally likely. */
    static KeyChooser uniform(final long keys, final SplittableRandom random)
    {
        return () -> random.nextLong(keys);
    }

    /**
     * Zipfian popularity (YCSB's scrambled Zipfian): rank r is as popular as Zipf says, and the key of rank r is
     * {@code fnv(r) mod keys}, so the hot keys are spread over the key space instead of being its first indexes.
     */
    static KeyChooser zipfian(final ZipfianGenerator zipf, final long keys, final SplittableRandom random)
    {
        return () -> Math.floorMod(fnv64(zipf.next(random.nextDouble())), keys);
    }

    /**
     * YCSB's "latest" (workload D): Zipfian over recency, the most recently inserted key the most popular.
     *
     * @param newest the index of the newest key, moved on by inserts.
     */
    static KeyChooser latest(final ZipfianGenerator zipf, final AtomicLong newest, final SplittableRandom random)
    {
        return () -> Math.max(0, newest.get() - zipf.next(random.nextDouble()));
    }

    /** 64-bit FNV-1a over the eight bytes of {@code value}. */
    static long fnv64(final long value)
    {
        long hash = 0xCBF29CE484222325L;
        long v = value;
        for (int i = 0; i < 8; i++)
        {
            hash ^= v & 0xFF;
            hash *= 0x100000001B3L;
            v >>>= 8;
        }
        return hash;
    }
}
