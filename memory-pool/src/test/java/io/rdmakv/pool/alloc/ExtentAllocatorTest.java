package io.rdmakv.pool.alloc;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExtentAllocatorTest
{
    private static final long GRACE = 100_000_000L;
    private static final int SLAB = 64 * 1024;          // a 64 KiB block of the range (16 pages)
    private static final int PAGE = ExtentAllocator.DEFAULT_PAGE_SIZE;
    private static final int PARTITION = 256 * 1024;

    private final ManualNanoClock clock = new ManualNanoClock();

    private ExtentAllocator allocator(final long start, final long length)
    {
        return new ExtentAllocator(start, length, PAGE, PARTITION, new EpochReclaimer(GRACE, clock));
    }

    @Test
    void shouldKeepLiveExtentsDisjointAlignedInRangeAndWithinTheWasteBoundUnderChurn()
    {
        final long start = 3 * 64;                              // not slab aligned: the head is skipped
        final long length = 8L * 1024 * 1024 + 5000;
        final ExtentAllocator allocator = allocator(start, length);
        final SplittableRandom random = new SplittableRandom(7);
        final TreeMap<Long, int[]> live = new TreeMap<>();      // offset -> {requested, granted}
        final List<Long> liveOffsets = new ArrayList<>();
        int fullCount = 0;

        for (int step = 0; step < 60_000; step++)
        {
            clock.advance(random.nextLong(0, GRACE / 20));
            if (liveOffsets.isEmpty() || random.nextInt(100) < 55)
            {
                final int bytes = random.nextInt(64, SLAB + 1);
                final long offset = allocator.allocate(bytes);
                if (offset == ExtentAllocator.FULL)
                {
                    fullCount++;
                    continue;
                }
                assertTrue(offset >= 0, "unexpected sentinel " + offset);
                final int granted = allocator.heldBytes(bytes);
                assertEquals(0, offset % 64, "aligned");
                assertTrue(offset >= start && offset + granted <= start + length, "in range");
                assertEquals(offset / PARTITION, (offset + granted - 1) / PARTITION, "crosses a partition");
                final Map.Entry<Long, int[]> below = live.floorEntry(offset);
                assertTrue(below == null || below.getKey() + below.getValue()[1] <= offset, "overlaps below");
                final Map.Entry<Long, int[]> above = live.ceilingEntry(offset);
                assertTrue(above == null || offset + granted <= above.getKey(), "overlaps above");
                live.put(offset, new int[] { bytes, granted });
                liveOffsets.add(offset);
            }
            else
            {
                final int index = random.nextInt(liveOffsets.size());
                final long offset = liveOffsets.get(index);
                liveOffsets.set(index, liveOffsets.get(liveOffsets.size() - 1));
                liveOffsets.remove(liveOffsets.size() - 1);
                final int[] sizes = live.remove(offset);
                assertEquals(ExtentAllocator.FREED, allocator.free(offset, sizes[0]));
            }
        }

        long requested = 0;
        long granted = 0;
        for (final int[] sizes : live.values())
        {
            requested += sizes[0];
            granted += sizes[1];
        }
        assertTrue(fullCount > 0, "the churn should have reached the full pool");
        assertEquals(live.size(), allocator.liveExtents());
        assertEquals(granted, allocator.bytesInUse());
        assertEquals(requested, allocator.requestedBytesInUse());
        final double waste = (double)allocator.bytesWasted() / allocator.requestedBytesInUse();
        assertTrue(waste <= 0.125, "rounding waste " + waste);
        assertTrue(allocator.liveLargeExtents() > 0 && allocator.slabCount() > 0, "both paths exercised");

        // Everything freed and past the grace period: every slab goes back, the pages merge into whole runs.
        for (final Map.Entry<Long, int[]> e : live.entrySet())
        {
            assertEquals(ExtentAllocator.FREED, allocator.free(e.getKey(), e.getValue()[0]));
        }
        clock.advance(GRACE);
        allocator.poll(clock.nanoTime());
        assertEquals(0, allocator.slabCount());
        assertEquals(0, allocator.retiredBytes());
        assertEquals(0, allocator.bytesInUse());
        assertEquals(allocator.pageCount(), allocator.freePages());
        final long whole = allocator.allocate(allocator.maxExtentBytes());
        assertTrue(whole >= 0, "a partition-long extent fits again: the runs merged");
    }

    @Test
    void shouldReturnFullThenRecoverOnlyAfterFreeAndGracePeriod()
    {
        final ExtentAllocator allocator = allocator(0, 4L * SLAB);
        final List<Long> offsets = new ArrayList<>();
        long offset;
        while ((offset = allocator.allocate(1000)) >= 0)
        {
            offsets.add(offset);
        }
        assertEquals(ExtentAllocator.FULL, offset);
        assertEquals(4 * SLAB / 1024, offsets.size());

        final long victim = offsets.get(17);
        assertEquals(ExtentAllocator.FREED, allocator.free(victim, 1000));
        assertEquals(ExtentAllocator.FULL, allocator.allocate(1000), "reused at once");
        clock.advance(GRACE - 1);
        assertEquals(ExtentAllocator.FULL, allocator.allocate(1000), "reused before the grace period");
        assertEquals(0, allocator.freeExtents(allocator.classOf(1000)));
        clock.advance(1);
        assertEquals(victim, allocator.allocate(1000));
        assertEquals(ExtentAllocator.FULL, allocator.allocate(1000));
    }

    @Test
    void shouldReuseExtentsInRetireOrderAsEachGracePeriodEnds()
    {
        final ExtentAllocator allocator = allocator(0, 4L * SLAB);
        final long a = allocator.allocate(200);
        final long b = allocator.allocate(200);
        final long keep = allocator.allocate(200);
        assertEquals(ExtentAllocator.FREED, allocator.free(a, 200));
        clock.advance(GRACE / 2);
        assertEquals(ExtentAllocator.FREED, allocator.free(b, 200));
        final int cls = allocator.classOf(200);
        final int reusableBefore = allocator.freeExtents(cls);

        clock.advance(GRACE / 2);
        assertEquals(1, allocator.poll(clock.nanoTime()));
        assertEquals(reusableBefore + 1, allocator.freeExtents(cls), "a is reusable, b is not yet");
        assertEquals(a, allocator.allocate(200));
        final long fresh = allocator.allocate(200);
        assertNotEquals(b, fresh, "b is still in its grace period");

        clock.advance(GRACE / 2);
        assertEquals(b, allocator.allocate(200));
        assertTrue(allocator.isAllocated(keep));
    }

    @Test
    void shouldGiveAFullyFreedSlabToAnotherClass()
    {
        final ExtentAllocator allocator = allocator(0, 2L * SLAB);
        final List<Long> small = new ArrayList<>();
        long offset;
        while ((offset = allocator.allocate(64)) >= 0)
        {
            small.add(offset);
        }
        assertEquals(ExtentAllocator.FULL, allocator.allocate(SLAB));
        for (final long o : small)
        {
            assertEquals(ExtentAllocator.FREED, allocator.free(o, 64));
        }
        clock.advance(GRACE);
        final long big1 = allocator.allocate(SLAB);
        final long big2 = allocator.allocate(SLAB);
        assertTrue(big1 >= 0 && big2 >= 0 && big1 != big2);
        assertEquals(ExtentAllocator.FULL, allocator.allocate(64));
        assertEquals(0, allocator.freeExtents(allocator.classOf(64)));
    }

    @Test
    void shouldNeverHandOutAFreedExtentOfASlabThatWasReturnedAndRecarved()
    {
        final ExtentAllocator allocator = allocator(0, SLAB);
        final long a = allocator.allocate(1000);
        final long b = allocator.allocate(1000);
        final long c = allocator.allocate(1000);
        assertEquals(ExtentAllocator.FREED, allocator.free(a, 1000));
        clock.advance(GRACE);
        allocator.poll(clock.nanoTime());
        final int perSlab = PAGE * allocator.slabPages(allocator.classOf(1000)) / 1024;
        assertEquals(perSlab - 2, allocator.freeExtents(allocator.classOf(1000)), "a is reusable again");
        assertEquals(ExtentAllocator.FREED, allocator.free(b, 1000));
        assertEquals(ExtentAllocator.FREED, allocator.free(c, 1000));
        clock.advance(GRACE);
        allocator.poll(clock.nanoTime());
        assertEquals(0, allocator.slabCount(), "the empty slab goes back");
        assertEquals(0, allocator.freeExtents(allocator.classOf(1000)));

        final long whole = allocator.allocate(SLAB);           // every page, now one large extent
        assertEquals(0, whole);
        assertEquals(ExtentAllocator.FULL, allocator.allocate(1000), "the stale entry for a must be dropped");
        assertTrue(allocator.isAllocated(whole));
    }

    @Test
    void shouldAnswerBadInputWithStatusCodes()
    {
        final ExtentAllocator allocator = allocator(0, 4L * SLAB);
        assertEquals(ExtentAllocator.INVALID_SIZE, allocator.allocate(0));
        assertEquals(ExtentAllocator.INVALID_SIZE, allocator.allocate(-1));
        assertEquals(ExtentAllocator.TOO_LARGE, allocator.allocate(allocator.maxExtentBytes() + 1));
        assertEquals(4 * SLAB, allocator.maxExtentBytes(), "bounded by the range, smaller than one partition");

        final long offset = allocator.allocate(300);
        assertEquals(ExtentAllocator.FREE_INVALID_OFFSET, allocator.free(-64, 300));
        assertEquals(ExtentAllocator.FREE_INVALID_OFFSET, allocator.free(offset + 1, 300));
        assertEquals(ExtentAllocator.FREE_INVALID_OFFSET, allocator.free(offset + 64, 300), "mid-extent");
        assertEquals(ExtentAllocator.FREE_NOT_ALLOCATED, allocator.free(offset + 320, 300), "never allocated");
        assertEquals(ExtentAllocator.FREE_INVALID_OFFSET, allocator.free(3L * SLAB, 300), "slab not in use");
        assertEquals(ExtentAllocator.FREE_INVALID_OFFSET, allocator.free(100L * SLAB, 300), "beyond the range");
        assertEquals(ExtentAllocator.FREE_SIZE_MISMATCH, allocator.free(offset, 5000));
        assertEquals(ExtentAllocator.FREED, allocator.free(offset, 260));
        assertFalse(allocator.isAllocated(offset));
        assertEquals(ExtentAllocator.FREE_NOT_ALLOCATED, allocator.free(offset, 300), "double free");
        assertEquals(1, allocator.slabCount(), "the double free must not release the slab twice");

        final int big = 3 * SLAB / 2;
        final long large = allocator.allocate(big);
        assertTrue(large >= 0);
        assertEquals(ExtentAllocator.FREE_INVALID_OFFSET, allocator.free(large + 64, big), "inside the first page");
        assertEquals(ExtentAllocator.FREE_INVALID_OFFSET, allocator.free(large + PAGE, big), "a later page");
        assertEquals(ExtentAllocator.FREE_SIZE_MISMATCH, allocator.free(large, big + PAGE), "one page more");
        assertEquals(ExtentAllocator.FREE_SIZE_MISMATCH, allocator.free(large, 300), "a small size");
        assertEquals(ExtentAllocator.FREED, allocator.free(large, big - 100), "same number of pages");
        assertFalse(allocator.isAllocated(large));
        assertEquals(ExtentAllocator.FREE_NOT_ALLOCATED, allocator.free(large, big), "double free of a large extent");
        clock.advance(GRACE);
        allocator.poll(clock.nanoTime());
        assertEquals(ExtentAllocator.FREE_INVALID_OFFSET, allocator.free(large, big), "released: free pages");
    }

    @Test
    void shouldRejectABadGeometry()
    {
        final EpochReclaimer reclaimer = new EpochReclaimer(GRACE, clock);
        assertThrows(IllegalArgumentException.class, () -> new ExtentAllocator(0, SLAB, 3000, PARTITION, reclaimer));
        assertThrows(IllegalArgumentException.class, () -> new ExtentAllocator(0, SLAB, 512, PARTITION, reclaimer));
        assertThrows(IllegalArgumentException.class, () -> new ExtentAllocator(0, SLAB, PAGE, PAGE / 2, reclaimer));
        assertThrows(IllegalArgumentException.class, () -> new ExtentAllocator(1, SLAB, PAGE, PARTITION, reclaimer));
        assertThrows(IllegalArgumentException.class, () -> new ExtentAllocator(64, PAGE, PAGE, PARTITION, reclaimer));
        assertThrows(IllegalArgumentException.class, () -> new ExtentAllocator(0, 0, PAGE, PARTITION, reclaimer));
        // 16 pages, but split 8 + 8 by a partition boundary: the largest slab (15 pages) fits in neither part.
        assertThrows(IllegalArgumentException.class,
            () -> new ExtentAllocator(PARTITION - 8 * PAGE, SLAB, PAGE, PARTITION, reclaimer));
    }

    @Test
    void shouldOfferTheFullExtentRangeWithDefaultPages()
    {
        final ExtentAllocator allocator = new ExtentAllocator(
            0, 8L << 20, ExtentAllocator.DEFAULT_PAGE_SIZE, 1 << 30, new EpochReclaimer(GRACE, clock));
        assertEquals((1 << 21) - 64, allocator.maxExtentBytes());
        final long offset = allocator.allocate((1 << 20) + 1024 + 64);
        assertTrue(offset >= 0);
        assertEquals(ExtentAllocator.TOO_LARGE, allocator.allocate(1 << 21));
    }
}
