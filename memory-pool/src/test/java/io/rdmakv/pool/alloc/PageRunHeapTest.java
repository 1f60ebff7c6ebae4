package io.rdmakv.pool.alloc;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class PageRunHeapTest
{
    private static final int PAGE = 4096;
    private static final byte OWNED = PageRunHeap.FIRST_OWNER_KIND;

    @Test
    void shouldMapEveryRunLengthToTheBinWhoseRangeHoldsIt()
    {
        for (int n = 1; n <= 1 << 21; n++)
        {
            final int bin = PageRunHeap.binOf(n);
            if (PageRunHeap.binFloor(bin) > n || PageRunHeap.binFloor(bin + 1) <= n)
            {
                fail(n + " pages -> bin " + bin + " [" + PageRunHeap.binFloor(bin) + ", " +
                    PageRunHeap.binFloor(bin + 1) + ")");
            }
        }
        assertEquals(31, PageRunHeap.binOf(31), "exact bins up to 31 pages");
        assertEquals(PageRunHeap.binOf(32), PageRunHeap.binOf(33));
    }

    @Test
    void shouldMergeFreedRunsWithFreeNeighboursButNotAcrossAPartition()
    {
        // 64 pages from page 0; partitions of 32 pages: two segments.
        final PageRunHeap heap = new PageRunHeap(0, 64, PAGE, 32 * PAGE);
        assertEquals(32, heap.largestSegmentPages());
        final int d = heap.allocate(32, OWNED);
        assertTrue(d == 0 || d == 32, "one whole partition: " + d);
        final int first = 32 - d;
        final int a = heap.allocate(10, OWNED);
        final int b = heap.allocate(10, OWNED);
        assertEquals(PageRunHeap.NIL, heap.allocate(13, OWNED), "12 pages left");
        final int c = heap.allocate(12, OWNED);
        assertEquals(first, a);
        assertEquals(first + 10, b);
        assertEquals(first + 20, c);
        assertEquals(0, heap.freePages());
        assertEquals(PageRunHeap.NIL, heap.allocate(1, OWNED));

        heap.free(a);
        heap.free(c);
        assertEquals(PageRunHeap.NIL, heap.allocate(13, OWNED), "two separate runs of 10 and 12");
        heap.free(b);
        checkRuns(heap);
        assertEquals(first, heap.allocate(32, OWNED), "merged into one run of the whole partition");
        heap.free(first);
        heap.free(d);
        checkRuns(heap);
        assertEquals(64, heap.freePages());
        assertEquals(PageRunHeap.NIL, heap.allocate(33, OWNED), "still two runs: one per partition");
    }

    @Test
    void shouldFindTheOwnedRunOfAnyPageAndNoneForFreePages()
    {
        final PageRunHeap heap = new PageRunHeap(8 * PAGE, 40, PAGE, 1 << 20);
        final int run = heap.allocate(7, OWNED);
        for (int p = run; p < run + 7; p++)
        {
            assertEquals(run, heap.ownedHeadOf(p));
        }
        assertEquals(PageRunHeap.NIL, heap.ownedHeadOf(run + 7));
        heap.free(run);
        final int other = heap.allocate(3, OWNED);
        assertEquals(run, other);
        assertEquals(PageRunHeap.NIL, heap.ownedHeadOf(run + 5), "a stale back-distance is not believed");
        assertEquals(PageRunHeap.NIL, heap.ownedHeadOf(-1));
        assertEquals(PageRunHeap.NIL, heap.ownedHeadOf(40));
        assertEquals(8L * PAGE + 3L * PAGE, heap.offsetOf(3));
        assertEquals(3, heap.pageOf(8L * PAGE + 3L * PAGE + 100));
        assertEquals(PageRunHeap.NIL, heap.pageOf(7L * PAGE));
    }

    @Test
    void shouldClaimTheWholeFreeRunHoldingAPage()
    {
        final PageRunHeap heap = new PageRunHeap(0, 30, PAGE, 1 << 20);
        final int a = heap.allocate(5, OWNED);
        final int b = heap.allocate(10, OWNED);
        heap.allocate(15, OWNED);
        heap.free(b);                                           // free run [5, 15)
        assertEquals(PageRunHeap.NIL, heap.freeRunHeadOf(a + 2));
        for (int p = 5; p < 15; p++)
        {
            assertEquals(5, heap.freeRunHeadOf(p), "page " + p);
        }
        heap.claim(heap.freeRunHeadOf(9), OWNED);
        assertEquals(0, heap.freePages());
        assertEquals(5, heap.ownedHeadOf(14));
        assertEquals(10, heap.runPages(5));
        checkRuns(heap);
    }

    @Test
    void shouldKeepRunsTiledAndFullyMergedUnderRandomChurn()
    {
        final SplittableRandom random = new SplittableRandom(3);
        // Not partition aligned: the first segment is short.
        final PageRunHeap heap = new PageRunHeap(100L * PAGE, 3000, PAGE, 1024 * PAGE);
        final List<Integer> owned = new ArrayList<>();
        int ownedPages = 0;
        for (int step = 0; step < 40_000; step++)
        {
            if (owned.isEmpty() || random.nextInt(100) < 52)
            {
                final int count = random.nextInt(100) < 80 ? random.nextInt(1, 16) : random.nextInt(16, 600);
                final int head = heap.allocate(count, OWNED);
                if (head != PageRunHeap.NIL)
                {
                    owned.add(head);
                    ownedPages += count;
                    assertEquals(count, heap.runPages(head));
                }
            }
            else
            {
                final int i = random.nextInt(owned.size());
                final int head = owned.get(i);
                owned.set(i, owned.get(owned.size() - 1));
                owned.remove(owned.size() - 1);
                ownedPages -= heap.runPages(head);
                heap.free(head);
            }
            if (step % 997 == 0)
            {
                checkRuns(heap);
            }
            assertEquals(3000 - ownedPages, heap.freePages());
        }
        checkRuns(heap);
        for (final int head : owned)
        {
            heap.free(head);
        }
        checkRuns(heap);
        assertEquals(3000, heap.freePages());
        assertNotEquals(PageRunHeap.NIL, heap.allocate(heap.largestSegmentPages(), OWNED));
    }

    /** Runs tile the pages, markers sit only at run ends, no run crosses a partition, no two free runs touch. */
    private static void checkRuns(final PageRunHeap heap)
    {
        int page = 0;
        boolean previousFree = false;
        int free = 0;
        while (page < heap.pageCount())
        {
            final byte kind = heap.kind(page);
            final int length = heap.runPages(page);
            assertTrue(length > 0 && page + length <= heap.pageCount(), "run at " + page + " of " + length);
            for (int p = page + 1; p < page + length; p++)
            {
                assertFalse(heap.startsPartition(p), "run at " + page + " crosses a partition at " + p);
                if (p < page + length - 1 || kind != PageRunHeap.FREE_HEAD)
                {
                    assertEquals(PageRunHeap.NONE, heap.kind(p), "marker inside the run at " + page + ": " + p);
                }
                assertEquals(kind == PageRunHeap.FREE_HEAD ? page : PageRunHeap.NIL, heap.freeRunHeadOf(p));
            }
            if (kind == PageRunHeap.FREE_HEAD)
            {
                if (length > 1)
                {
                    assertEquals(PageRunHeap.FREE_TAIL, heap.kind(page + length - 1));
                    assertEquals(length, heap.runPages(page + length - 1));
                }
                assertEquals(page, heap.freeRunHeadOf(page));
                assertFalse(previousFree && !heap.startsPartition(page), "unmerged free runs at " + page);
                assertEquals(PageRunHeap.NIL, heap.ownedHeadOf(page));
                free += length;
                previousFree = true;
            }
            else
            {
                assertTrue(kind >= PageRunHeap.FIRST_OWNER_KIND, "head at " + page + " has kind " + kind);
                assertEquals(page, heap.ownedHeadOf(page + length - 1));
                previousFree = false;
            }
            page += length;
        }
        assertEquals(heap.freePages(), free);
    }
}
