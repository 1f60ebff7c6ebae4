package io.rdmakv.pool.alloc;

import org.agrona.BitUtil;

import java.util.Arrays;

/**
 * The pages of an extents range and the runs they form: the bottom layer of the {@link ExtentAllocator}. Every page
 * belongs to exactly one run; a run is free, or owned by the layer above (a slab of small extents, or one large
 * extent). <b>Single-writer</b>, like the allocator; works on page numbers only, never on memory.
 *
 * <pre>
 *   arena offset:  base                base + P            ...                      base + pageCount x P
 *   pages:         | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | ... |p-1| p | ... | pageCount-1 |
 *   runs:          |slab |  free run     |   large   |slab | ...   ||  free run   ...         |
 *                   ^head ^head       ^tail ^head                   ^^ partition boundary: no run spans it
 *
 *   per page:  kind   FREE_HEAD / FREE_TAIL at the first / last page of a free run (a one-page run: FREE_HEAD);
 *                     the owner's kind at the head of an owned run; NONE everywhere else (the inside of a run)
 *              pages  the run's length at its head (and, for a free run, at its tail, to merge from the right)
 *              back   page - head, for every page of an owned run (a slab's extents map to their slab this way)
 *              next, prev
 *                     links of the run's list: a free run's size bin here, an owned run's list of its owner
 * </pre>
 *
 * <p><b>Free runs</b> sit in size bins, two-level like TLSF (Masmano et al., 2004): exact bins up to
 * {@code 2 x SUB_BINS} pages, then {@link #SUB_BINS} bins per power of two. {@link #allocate(int, byte)} looks for
 * the first non-empty bin whose every run is long enough (a scan of a few bitmap words), takes the run's front and
 * puts the rest back; only if every such bin is empty does it search the request's own bin (a few entries) for a
 * run that still fits. {@link #free(int)} merges the run with free neighbours in O(1), via the markers at their
 * ends, but never across a partition boundary: so no run, and no extent in one, ever crosses a partition.
 */
final class PageRunHeap
{
    /** Not a run head or free-run tail: a page inside a run. */
    static final byte NONE = 0;
    /** The first page of a free run. */
    static final byte FREE_HEAD = 1;
    /** The last page of a free run of two pages or more. */
    static final byte FREE_TAIL = 2;
    /** Kinds at or above this belong to the owner of the run. */
    static final byte FIRST_OWNER_KIND = 3;

    /** No page: the end of a list. */
    static final int NIL = -1;

    private static final int SUB_BIN_SHIFT = 4;
    private static final int SUB_BINS = 1 << SUB_BIN_SHIFT;
    /** Entries of the request's own bin looked at when no larger bin has a run. */
    private static final int SAME_BIN_PROBES = 16;

    private final long base;
    private final int pageShift;
    private final int pageCount;
    private final long partitionMask;

    private final byte[] kind;
    private final int[] pages;
    private final int[] back;
    private final int[] next;
    private final int[] prev;

    private final int[] binHead;
    private final long[] binBits;
    private int freePages;
    private final int largestSegmentPages;

    /**
     * @param base arena offset of page 0, a multiple of {@code pageSize}.
     * @param pageCount pages in the range.
     * @param pageSize a power of two, no larger than {@code partitionSize}.
     * @param partitionSize the arena's partition size (a power of two): runs never cross a multiple of it.
     */
    PageRunHeap(final long base, final int pageCount, final int pageSize, final int partitionSize)
    {
        if (!BitUtil.isPowerOfTwo(pageSize) || !BitUtil.isPowerOfTwo(partitionSize) || pageSize > partitionSize ||
            (base & (pageSize - 1)) != 0 || pageCount <= 0)
        {
            throw new IllegalArgumentException("bad page geometry: base=" + base + " pages=" + pageCount +
                " pageSize=" + pageSize + " partitionSize=" + partitionSize);
        }
        this.base = base;
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
        this.pageCount = pageCount;
        this.partitionMask = partitionSize - 1L;
        kind = new byte[pageCount];
        pages = new int[pageCount];
        back = new int[pageCount];
        next = new int[pageCount];
        prev = new int[pageCount];

        final int binCount = binOf(pageCount) + 1;
        binHead = new int[binCount];
        Arrays.fill(binHead, NIL);
        binBits = new long[(binCount + 63) >>> 6];

        // One free run per partition segment of the range.
        int largest = 0;
        int head = 0;
        for (int p = 1; p <= pageCount; p++)
        {
            if (p == pageCount || startsPartition(p))
            {
                final int length = p - head;
                markFree(head, length);
                insert(head, length);
                freePages += length;
                largest = Math.max(largest, length);
                head = p;
            }
        }
        largestSegmentPages = largest;
    }

    /**
     * Take a run of exactly {@code count} pages and mark its head with {@code ownerKind}.
     *
     * @return the head page, or {@link #NIL} if no free run is long enough.
     */
    int allocate(final int count, final byte ownerKind)
    {
        final int run = findRun(count);
        if (run == NIL)
        {
            return NIL;
        }
        take(run, count, ownerKind);
        return run;
    }

    /** The head of the free run that holds {@code page}, or {@link #NIL} if the page is owned. */
    int freeRunHeadOf(final int page)
    {
        final int head;
        if (kind[page] == FREE_HEAD)
        {
            head = page;
        }
        else if (kind[page] == FREE_TAIL)
        {
            head = page - pages[page] + 1;
        }
        else if (ownedHeadOf(page) == NIL)
        {
            int tail = page + 1;                         // inside a free run: its tail is the next marked page
            while (kind[tail] == NONE)
            {
                tail++;
            }
            head = tail - pages[tail] + 1;
        }
        else
        {
            return NIL;
        }
        return head;
    }

    /** Take the free run at {@code head} whole (see {@link #freeRunHeadOf}) as an owned run of {@code ownerKind}. */
    void claim(final int head, final byte ownerKind)
    {
        take(head, pages[head], ownerKind);
    }

    /** Give back the owned run at {@code head}: it merges with free neighbours in the same partition. */
    void free(final int head)
    {
        int start = head;
        int length = pages[head];
        freePages += length;
        kind[head] = NONE;

        if (start > 0 && !startsPartition(start) && (kind[start - 1] == FREE_TAIL || kind[start - 1] == FREE_HEAD))
        {
            final int leftTail = start - 1;
            final int leftLength = pages[leftTail];
            final int leftHead = leftTail - leftLength + 1;
            remove(leftHead, leftLength);
            kind[leftTail] = NONE;
            start = leftHead;
            length += leftLength;
        }
        final int right = start + length;
        if (right < pageCount && !startsPartition(right) && kind[right] == FREE_HEAD)
        {
            final int rightLength = pages[right];
            remove(right, rightLength);
            kind[right] = NONE;
            kind[right + rightLength - 1] = NONE;
            length += rightLength;
        }
        markFree(start, length);
        insert(start, length);
    }

    /**
     * The head of the owned run holding {@code page}, or {@link #NIL} if the page is free (or not a page). Stale
     * back-distances left inside free runs are caught: the head they point at must be an owned run covering the page.
     */
    int ownedHeadOf(final int page)
    {
        if (page < 0 || page >= pageCount)
        {
            return NIL;
        }
        final int head = page - back[page];
        if (head < 0 || kind[head] < FIRST_OWNER_KIND || page >= head + pages[head])
        {
            return NIL;
        }
        return head;
    }

    /** The kind marked at {@code page}: {@link #NONE}, {@link #FREE_HEAD}, {@link #FREE_TAIL} or an owner's kind. */
    byte kind(final int page)
    {
        return kind[page];
    }

    /** Re-mark an owned run's head with another owner kind (e.g. allocated -> retired). */
    void setOwnerKind(final int head, final byte ownerKind)
    {
        kind[head] = ownerKind;
    }

    /** Pages in the run at {@code head}. */
    int runPages(final int head)
    {
        return pages[head];
    }

    /** Link of an owned run, for its owner's own list. */
    int next(final int head)
    {
        return next[head];
    }

    int prev(final int head)
    {
        return prev[head];
    }

    void setNext(final int head, final int value)
    {
        next[head] = value;
    }

    void setPrev(final int head, final int value)
    {
        prev[head] = value;
    }

    /** Arena offset of page {@code page}. */
    long offsetOf(final int page)
    {
        return base + ((long)page << pageShift);
    }

    /** The page holding arena offset {@code offset}, or {@link #NIL} outside the range. */
    int pageOf(final long offset)
    {
        final long rel = offset - base;
        if (rel < 0 || (rel >>> pageShift) >= pageCount)
        {
            return NIL;
        }
        return (int)(rel >>> pageShift);
    }

    int pageCount()
    {
        return pageCount;
    }

    int pageShift()
    {
        return pageShift;
    }

    long base()
    {
        return base;
    }

    int freePages()
    {
        return freePages;
    }

    /** The longest run the range can ever hold: its largest partition segment. */
    int largestSegmentPages()
    {
        return largestSegmentPages;
    }

    /** Bytes of the per-page and per-bin arrays. */
    long metadataBytes()
    {
        return (long)pageCount * (Byte.BYTES + 4 * Integer.BYTES) + (long)binHead.length * Integer.BYTES +
            (long)binBits.length * Long.BYTES;
    }

    /** True if page {@code page} is the first page of a partition. */
    boolean startsPartition(final int page)
    {
        return ((base + ((long)page << pageShift)) & partitionMask) == 0;
    }

    private int findRun(final int count)
    {
        final int own = binOf(count);
        // Every run in a bin above `own` is longer than count; the first run of `own` only if its bin is exact.
        int bin = count == binFloor(own) ? own : own + 1;
        for (int word = bin >>> 6; word < binBits.length; word++)
        {
            long bits = binBits[word];
            if (word == bin >>> 6)
            {
                bits &= -1L << bin;
            }
            if (bits != 0)
            {
                return binHead[(word << 6) + Long.numberOfTrailingZeros(bits)];
            }
        }
        int probes = 0;
        for (int run = binHead[own]; run != NIL && probes < SAME_BIN_PROBES; run = next[run], probes++)
        {
            if (pages[run] >= count)
            {
                return run;
            }
        }
        return NIL;
    }

    private void take(final int run, final int count, final byte ownerKind)
    {
        final int length = pages[run];
        remove(run, length);
        kind[run + length - 1] = NONE;                 // the old tail is inside the new runs (or is the new head)
        if (length > count)
        {
            final int rest = run + count;
            markFree(rest, length - count);
            insert(rest, length - count);
        }
        kind[run] = ownerKind;
        pages[run] = count;
        for (int p = 0; p < count; p++)
        {
            back[run + p] = p;
        }
        next[run] = NIL;
        prev[run] = NIL;
        freePages -= count;
    }

    private void markFree(final int head, final int length)
    {
        pages[head + length - 1] = length;
        kind[head + length - 1] = FREE_TAIL;
        pages[head] = length;
        kind[head] = FREE_HEAD;                          // last: a one-page run is a head
    }

    private void insert(final int head, final int length)
    {
        final int bin = binOf(length);
        final int first = binHead[bin];
        next[head] = first;
        prev[head] = NIL;
        if (first != NIL)
        {
            prev[first] = head;
        }
        binHead[bin] = head;
        binBits[bin >>> 6] |= 1L << bin;
    }

    private void remove(final int head, final int length)
    {
        final int bin = binOf(length);
        final int after = next[head];
        final int before = prev[head];
        if (before != NIL)
        {
            next[before] = after;
        }
        else
        {
            binHead[bin] = after;
            if (after == NIL)
            {
                binBits[bin >>> 6] &= ~(1L << bin);
            }
        }
        if (after != NIL)
        {
            prev[after] = before;
        }
    }

    /** Bin of a run of {@code length} pages: exact below 2 x SUB_BINS, then SUB_BINS bins per power of two. */
    static int binOf(final int length)
    {
        if (length < 2 * SUB_BINS)
        {
            return length;
        }
        final int log2 = 31 - Integer.numberOfLeadingZeros(length);
        final int sub = (length >>> (log2 - SUB_BIN_SHIFT)) - SUB_BINS;
        return ((log2 - SUB_BIN_SHIFT + 1) << SUB_BIN_SHIFT) + sub;
    }

    /** The shortest run length that falls in {@code bin}. */
    static int binFloor(final int bin)
    {
        if (bin < 2 * SUB_BINS)
        {
            return bin;
        }
        final int log2 = (bin >>> SUB_BIN_SHIFT) + SUB_BIN_SHIFT - 1;
        final int sub = bin & (SUB_BINS - 1);
        return (SUB_BINS + sub) << (log2 - SUB_BIN_SHIFT);
    }
}
