package io.rdmakv.pool.alloc;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the allocator does with memory, as byte counts: small pools with many size classes and a grace period, the
 * rounding waste target of issue #5, filling a pool, and eviction windows.
 */
class ExtentAllocatorMemoryTest
{
    private static final long GRACE = 100_000_000L;
    private static final int PAGE = ExtentAllocator.DEFAULT_PAGE_SIZE;
    private static final int PARTITION = 1 << 30;
    /** Extent header (40 B since layout 4: data version and expiry) + a 16-byte key: what every request carries besides its value. */
    private static final int ENTRY_OVERHEAD = 40 + 16;

    private final ManualNanoClock clock = new ManualNanoClock();

    private ExtentAllocator allocator(final long length)
    {
        return new ExtentAllocator(0, length, PAGE, PARTITION, new EpochReclaimer(GRACE, clock));
    }

    @Test
    void shouldNeverRunOutWhenManyClassesChurnInASmallPoolUnderTheGracePeriod()
    {
        // The reproducer of the 2 MiB-slab defect, scaled down: 16 keys rewritten with values over ~30 classes (and
        // now and then a large one) in a 4 MiB pool, 1 ms apart, so each grace period holds ~100 retired extents.
        final ExtentAllocator allocator = allocator(4L << 20);
        final SplittableRandom random = new SplittableRandom(11);
        final long[] offsets = new long[16];
        final int[] sizes = new int[16];
        long maxHeldPages = 0;
        for (int step = 0; step < 30_000; step++)
        {
            clock.advance(1_000_000L);
            final int k = step & 15;
            if (sizes[k] != 0)
            {
                assertEquals(ExtentAllocator.FREED, allocator.free(offsets[k], sizes[k]));
            }
            final int value = random.nextInt(50) == 0 ? random.nextInt(40_000, 200_000) : random.nextInt(40, 3000);
            sizes[k] = ENTRY_OVERHEAD + value;
            offsets[k] = allocator.allocate(sizes[k]);
            assertTrue(offsets[k] >= 0, "step " + step + ": " + offsets[k] + " with " + allocator.freePages() +
                " of " + allocator.pageCount() + " pages free");
            maxHeldPages = Math.max(maxHeldPages, allocator.pageCount() - allocator.freePages());
        }
        // Live + retired: 16 + ~100 extents; the rest of what is held is partly used slabs, one per class at most
        // needed, each of at most 15 pages.
        final long bound = 16 * 200_000L + 128 * 3100L + (long)allocator.classCount() * 15 * PAGE;
        assertTrue(maxHeldPages * PAGE <= bound, "held " + maxHeldPages * PAGE + " > " + bound);
        System.out.printf("small pool churn: at most %d of %d pages held (%.0f%%)%n", maxHeldPages,
            allocator.pageCount(), 100.0 * maxHeldPages / allocator.pageCount());

        for (int k = 0; k < 16; k++)
        {
            assertEquals(ExtentAllocator.FREED, allocator.free(offsets[k], sizes[k]));
        }
        clock.advance(GRACE);
        allocator.poll(clock.nanoTime());
        assertEquals(allocator.pageCount(), allocator.freePages(), "every page comes back once all is released");
        assertEquals(0, allocator.slabCount());
    }

    /**
     * Issue #5's target. Requested bytes of an entry: its extent header (40 B) + key (16 B) + value, the value
     * uniform in [64 B, 64 KiB]. Held bytes: the class size of a small extent (slabs are tiled exactly), the pages of
     * a large one; and, as a stricter figure, every page taken from the page heap (so including the unused extents
     * of partly filled slabs).
     */
    @Test
    void shouldHoldAtMostAnEighthMoreThanRequestedForValuesUniformFrom64BTo64KiB()
    {
        final ExtentAllocator allocator = allocator(1L << 30);
        final SplittableRandom random = new SplittableRandom(5);
        long requested = 0;
        for (int i = 0; i < 20_000; i++)
        {
            final int bytes = ENTRY_OVERHEAD + random.nextInt(64, 65536 + 1);
            requested += bytes;
            assertTrue(allocator.allocate(bytes) >= 0);
        }
        assertEquals(requested, allocator.requestedBytesInUse());
        final double rounding = (double)allocator.bytesInUse() / requested - 1;
        final long pagesHeld = (long)(allocator.pageCount() - allocator.freePages()) * PAGE;
        final double withSlabs = (double)pagesHeld / requested - 1;
        System.out.printf("uniform 64 B..64 KiB values (+40 B): rounding waste %.2f%%, pages held %.2f%% over%n",
            100 * rounding, 100 * withSlabs);
        assertTrue(rounding <= 0.125, "rounding waste " + rounding);
        assertTrue(withSlabs <= 0.125, "held pages over requested " + withSlabs);

        // Bounded metadata: 40 bytes per 4 KiB page, under 1% of the range.
        final long metadata = allocator.metadataBytes();
        assertTrue(metadata <= (1L << 30) / 100, "metadata " + metadata);
        System.out.printf("allocator metadata for 1 GiB at 4 KiB pages: %d bytes (%.2f%%)%n", metadata,
            100.0 * metadata / (1L << 30));
    }

    @Test
    void shouldFillASmallPoolWithMixedSizesBeforeReportingFull()
    {
        final ExtentAllocator allocator = allocator(32L << 20);
        final SplittableRandom random = new SplittableRandom(9);
        long requested = 0;
        long offset;
        int bytes;
        while (true)
        {
            bytes = ENTRY_OVERHEAD + random.nextInt(64, 65536 + 1);
            offset = allocator.allocate(bytes);
            if (offset < 0)
            {
                break;
            }
            requested += bytes;
        }
        assertEquals(ExtentAllocator.FULL, offset);
        final double filled = (double)requested / ((long)allocator.pageCount() * PAGE);
        System.out.printf("32 MiB filled with 64 B..64 KiB values: %.1f%% requested bytes at the first FULL%n",
            100 * filled);
        // Of the range: under 12.5% rounding, and what the last request did not find (< 64 KiB + one slab per class).
        assertTrue(filled >= 0.8, "filled " + filled);
    }

    @Test
    void shouldEvictAWindowThatServesALargeRequestAfterTheGracePeriod()
    {
        final ExtentAllocator allocator = allocator(2L << 20);
        final List<long[]> live = fillWithSmallExtents(allocator);
        final int large = 200_000;
        assertEquals(ExtentAllocator.FULL, allocator.allocate(large));
        assertEvictionWindowServes(allocator, live, large);
        assertEvictionWindowServes(allocator, live, large);     // the next window, further on
    }

    @Test
    void shouldEvictAWindowForASmallClassThatHasNoSlab()
    {
        final ExtentAllocator allocator = allocator(2L << 20);
        final List<long[]> live = fillWithSmallExtents(allocator);
        final int bytes = 20_000;                               // a class the fill never used
        assertEquals(0, allocator.freeExtents(allocator.classOf(bytes)));
        assertEquals(ExtentAllocator.FULL, allocator.allocate(bytes));
        assertEvictionWindowServes(allocator, live, bytes);
    }

    @Test
    void shouldMatchVictimsThatCanBeReusedDirectly()
    {
        final ExtentAllocator allocator = allocator(8L << 20);
        assertTrue(allocator.canReuse(1000, 1010), "same class");
        assertTrue(!allocator.canReuse(1000, 1100), "neighbouring class");
        assertTrue(allocator.canReuse(300_000, 200_000), "a longer large run");
        assertTrue(!allocator.canReuse(200_000, 300_000), "a shorter large run");
        assertTrue(!allocator.canReuse(30_000, 40_000), "a small extent for a large request");
        assertTrue(!allocator.canReuse(40_000, 30_000), "a large extent for a small request");
        assertTrue(!allocator.canReuse(0, 100));
        assertTrue(!allocator.canReuse(100, allocator.maxExtentBytes() + 1));
    }

    /** Small extents over all small classes until FULL; returns {offset, bytes} of each. */
    private List<long[]> fillWithSmallExtents(final ExtentAllocator allocator)
    {
        final SplittableRandom random = new SplittableRandom(21);
        final List<long[]> live = new ArrayList<>();
        int refused = 0;
        while (refused < 200)
        {
            final int bytes = random.nextInt(64, 16_000);
            final long offset = allocator.allocate(bytes);
            if (offset < 0)
            {
                refused++;
                continue;
            }
            live.add(new long[] {offset, bytes});
        }
        return live;
    }

    private void assertEvictionWindowServes(final ExtentAllocator allocator, final List<long[]> live, final int bytes)
    {
        final List<Long> shown = new ArrayList<>();
        final int count = allocator.visitEvictionWindow(bytes, (offset, held) ->
        {
            shown.add(offset);
            long[] entry = null;
            for (final long[] e : live)
            {
                if (e[0] == offset)
                {
                    entry = e;
                }
            }
            assertTrue(entry != null, "shown an extent that is not live: " + offset);
            assertEquals(allocator.heldBytes((int)entry[1]), held);
            assertEquals(ExtentAllocator.FREED, allocator.free(offset, (int)entry[1]));
            live.remove(entry);
        });
        assertEquals(shown.size(), count);
        assertTrue(count > 0);
        assertEquals(ExtentAllocator.FULL, allocator.allocate(bytes), "evicted extents wait for the grace period");
        clock.advance(GRACE);
        final long offset = allocator.allocate(bytes);
        assertTrue(offset >= 0, "the window serves the request after the grace period: " + offset);
        live.add(new long[] {offset, bytes});
    }
}
