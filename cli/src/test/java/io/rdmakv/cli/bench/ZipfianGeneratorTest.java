package io.rdmakv.cli.bench;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZipfianGeneratorTest
{
    private static final int ITEMS = 1000;
    private static final int DRAWS = 400_000;

    @Test
    void shouldDrawRanksWithZipfFrequencies()
    {
        final ZipfianGenerator zipf = new ZipfianGenerator(ITEMS, ZipfianGenerator.DEFAULT_THETA);
        final SplittableRandom random = new SplittableRandom(1);
        final long[] counts = new long[ITEMS];
        for (int i = 0; i < DRAWS; i++)
        {
            final long rank = zipf.next(random.nextDouble());
            assertTrue(rank >= 0 && rank < ITEMS, "rank " + rank);
            counts[(int)rank]++;
        }
        // Gray's method is exact for ranks 0 and 1 and approximate beyond: allow 10% there, 25% further out.
        for (final int rank : new int[] {0, 1})
        {
            final double expected = zipf.probability(rank) * DRAWS;
            assertEquals(expected, counts[rank], expected * 0.1, "rank " + rank);
        }
        for (final int rank : new int[] {5, 50})
        {
            final double expected = zipf.probability(rank) * DRAWS;
            assertEquals(expected, counts[rank], expected * 0.25, "rank " + rank);
        }
        assertTrue(counts[0] > 50 * counts[ITEMS - 1], "the head is far more popular than the tail");
    }

    @Test
    void shouldSpreadHotKeysOverTheKeySpaceWhenScrambled()
    {
        final ZipfianGenerator zipf = new ZipfianGenerator(ITEMS, 0.99);
        final KeyChooser chooser = KeyChooser.zipfian(zipf, ITEMS, new SplittableRandom(2));
        final long[] counts = new long[ITEMS];
        for (int i = 0; i < DRAWS; i++)
        {
            counts[(int)chooser.next()]++;
        }
        int hottest = 0;
        for (int i = 1; i < ITEMS; i++)
        {
            hottest = counts[i] > counts[hottest] ? i : hottest;
        }
        assertEquals(Math.floorMod(KeyChooser.fnv64(0), ITEMS), hottest, "the hottest key is where rank 0 lands");
        assertNotEquals(0, hottest, "hot keys are not simply the first indexes");
        assertTrue(counts[hottest] > 0.08 * DRAWS, "rank 0 takes about 1/zeta(1000) = 13% of draws");
    }

    @Test
    void shouldFavourTheNewestKeysForLatest()
    {
        final ZipfianGenerator zipf = new ZipfianGenerator(ITEMS, 0.99);
        final AtomicLong newest = new AtomicLong(4999);
        final KeyChooser latest = KeyChooser.latest(zipf, newest, new SplittableRandom(3));
        long newestCount = 0;
        for (int i = 0; i < 10_000; i++)
        {
            final long key = latest.next();
            assertTrue(key >= 4999 - ITEMS && key <= 4999, "key " + key);
            newestCount += key == 4999 ? 1 : 0;
        }
        assertTrue(newestCount > 800, "the newest key is the most popular: " + newestCount);
        newest.set(6000);
        assertTrue(latest.next() > 4999, "follows inserts");
    }

    @Test
    void shouldCoverTheRangeUniformly()
    {
        final KeyChooser uniform = KeyChooser.uniform(10, new SplittableRandom(4));
        final long[] counts = new long[10];
        for (int i = 0; i < 100_000; i++)
        {
            counts[(int)uniform.next()]++;
        }
        for (final long c : counts)
        {
            assertEquals(10_000, c, 500);
        }
    }

    @Test
    void shouldRejectBadArguments()
    {
        assertThrows(IllegalArgumentException.class, () -> new ZipfianGenerator(0, 0.99));
        assertThrows(IllegalArgumentException.class, () -> new ZipfianGenerator(10, 1.0));
        assertThrows(IllegalArgumentException.class, () -> new ZipfianGenerator(10, 0));
    }
}
