package io.rdmakv.pool.alloc;

import org.agrona.BitUtil;

/**
 * The allocator of value extents in an arena byte range {@code [start, start + length)} (arena-relative offsets).
 * <b>Single-writer:</b> the server's one writer thread calls every method; nothing here is thread-safe. It works on
 * offsets only and never touches the memory.
 *
 * <pre>
 *   arena:  | start .. head |          pages of P bytes (P = 4 KiB by default), aligned to P          | .. tail |
 *                           | slab c=3 |  free run  | large extent (9..512 pages) | slab c=17 | free |  ...
 *                           |e|e|e|e|e|             | one extent, rounded to pages| e  | e  | e |
 *                                       ^ partition boundary (a multiple of P): no run crosses it
 *
 *   request r bytes                        served from                           held
 *   r &lt;= 8 P        (small: 56 classes  a slab of its size class              the class size
 *                    at 4 KiB pages)
 *   8 P &lt; r &lt;= max (large)               its own run of ceil(r / P) pages      ceil(r / P) x P
 * </pre>
 *
 * Three layers: {@link PageRunHeap} keeps the pages as runs (free runs in size bins, merged with their neighbours
 * when freed); {@link SmallExtentSlabs} carves small extents out of slabs of whole pages, one class per slab; this
 * class routes requests, checks frees, defers reuse through the {@link EpochReclaimer} and keeps the figures.
 *
 * <p><b>Why this shape.</b> The earlier allocator carved every class from 2 MiB slabs: a pool of a few MiB had fewer
 * slabs than the classes a workload touches, so it evicted while nearly empty. Here a class starts with one slab of at
 * most 15 pages (60 KiB at 4 KiB pages, 15 KiB at 1 KiB pages), slabs go back to the page heap as soon as all their
 * extents are past their grace period, and large extents take exactly the pages they need, so free memory is one pool
 * for every size. What stays as before: 64-byte aligned offsets and sizes, no extent across a partition, reuse only
 * after the grace period, O(1) allocate and free (bounded scans of a few bitmap words; a large extent also writes
 * one back-pointer per page, less work than copying its value), status codes instead of exceptions. The price is
 * per-page metadata touched on every call: the JMH churn costs about 1.45x the old allocator's time per operation.
 *
 * <p><b>Waste.</b> Held bytes exceed the request by (a) class rounding for small extents: under 64 B up to 1 KiB,
 * under 1/8 of the request above ({@link SizeClasses}); slabs have no tails, as a class tiles its slab exactly; (b)
 * page rounding for large extents: under one page, i.e. under 1/8 of a request above 8 pages. So every request is
 * held with at most 12.5% more bytes above 512 B, and a uniform mix of sizes loses far less (tested). Beyond
 * rounding, memory can sit (c) in reusable extents of partly used slabs (at most what one class freed and has not
 * reused, and a slab returns to the heap once empty) and (d) in free runs too short for a request (fragmentation).
 *
 * <p><b>A full pool.</b> {@link #allocate} answers {@link #FULL}. The caller evicts: either extents that
 * {@link #canReuse can be reused} for the request (same class, or a large run at least as long), or, when there are
 * none, every live extent of an {@link #visitEvictionWindow eviction window}: a run of pages, long enough for the
 * request, that becomes one free run once those extents are past their grace period.
 *
 * <p>On-heap metadata ({@link #metadataBytes()}): per page a kind, run length, back distance to the run head, two
 * list links, two slab counters, a scan hint and a flag (24 bytes), and per 64-byte unit an allocated and a reusable
 * bit: 40 bytes per 4 KiB page (0.98% of the range), 28 per 1 KiB page (2.7%, pools under 8 MiB). The reclaimer's
 * FIFO grows with the extents in their grace period.
 */
public final class ExtentAllocator
{
    /** {@link #allocate(int)}: no room for the request now. Try again after frees and the grace period. */
    public static final long FULL = -1;
    /** {@link #allocate(int)}: larger than {@link #maxExtentBytes()}, will never fit. */
    public static final long TOO_LARGE = -2;
    /** {@link #allocate(int)}: zero or negative size. */
    public static final long INVALID_SIZE = -3;

    /** {@link #free(long, int)}: retired; reusable after the grace period. */
    public static final int FREED = 0;
    /** {@link #free(long, int)}: the offset is not the start of an extent of this allocator. */
    public static final int FREE_INVALID_OFFSET = -1;
    /** {@link #free(long, int)}: the extent is not allocated (double free, or never allocated). */
    public static final int FREE_NOT_ALLOCATED = -2;
    /** {@link #free(long, int)}: the size is not one the extent could have been allocated for. */
    public static final int FREE_SIZE_MISMATCH = -3;

    /** Default page size: 4 KiB (small classes up to 32 KiB, slabs of at most 15 pages). */
    public static final int DEFAULT_PAGE_SIZE = 4096;
    /** Smallest page size. */
    public static final int MIN_PAGE_SIZE = 1024;
    /** Largest page size (a slab's extent count must fit its 16-bit counters). */
    public static final int MAX_PAGE_SIZE = 64 * 1024;
    /** Small extents are at most this many pages. */
    public static final int SMALL_MAX_PAGES = 8;

    /** Receives the live extents of an eviction window. */
    @FunctionalInterface
    public interface ExtentVisitor
    {
        /**
         * @param offset arena offset of a live extent.
         * @param heldBytes bytes the allocator holds for it (class size, or its pages).
         */
        void visit(long offset, int heldBytes);
    }

    private static final byte LARGE = PageRunHeap.FIRST_OWNER_KIND;
    private static final byte LARGE_RETIRED = PageRunHeap.FIRST_OWNER_KIND + 1;
    private static final byte FIRST_SLAB_KIND = PageRunHeap.FIRST_OWNER_KIND + 2;

    private final SizeClasses classes;
    private final PageRunHeap heap;
    private final SmallExtentSlabs slabs;
    private final EpochReclaimer reclaimer;
    private final EpochReclaimer.Releaser releaser = this::release;
    private final SmallExtentSlabs.OffsetVisitor smallVisitor = this::visitSmall;
    private final long rangeStart;
    private final long rangeLength;
    private final int pageSize;
    private final int pageShift;
    private final int partitionShift;
    private final int maxSmallBytes;
    private final int maxExtentBytes;

    private ExtentVisitor windowVisitor;
    private int windowShown;
    private int evictionHand;

    private long bytesInUse;
    private long requestedBytesInUse;
    private long retiredBytes;
    private long liveExtents;
    private long liveLargeExtents;
    private final long[] liveInClass;

    /**
     * @param start arena offset of the range, a multiple of 64.
     * @param length bytes in the range.
     * @param pageSize a power of two in [{@link #MIN_PAGE_SIZE}, {@link #MAX_PAGE_SIZE}], no larger than
     *                 {@code partitionSize}; see {@link #DEFAULT_PAGE_SIZE}.
     * @param partitionSize the arena's partition size (a power of two): no extent crosses a multiple of it.
     * @param reclaimer holds freed extents for the grace period.
     * @throws IllegalArgumentException for a bad geometry, or a range without room for the largest slab in one
     *                                  partition.
     */
    public ExtentAllocator(
        final long start,
        final long length,
        final int pageSize,
        final int partitionSize,
        final EpochReclaimer reclaimer)
    {
        if (start < 0 || (start & (SizeClasses.UNIT - 1)) != 0 || length <= 0)
        {
            throw new IllegalArgumentException("range must start at a non-negative multiple of 64 and be non-empty: " +
                "start=" + start + " length=" + length);
        }
        if (!BitUtil.isPowerOfTwo(pageSize) || pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE ||
            !BitUtil.isPowerOfTwo(partitionSize) || pageSize > partitionSize)
        {
            throw new IllegalArgumentException("pageSize must be a power of two in [" + MIN_PAGE_SIZE + ", " +
                MAX_PAGE_SIZE + "] and <= partitionSize (a power of two): pageSize=" + pageSize +
                " partitionSize=" + partitionSize);
        }
        final long base = (start + pageSize - 1) & -(long)pageSize;
        final long end = (start + length) & -(long)pageSize;
        final long pageCount = end > base ? (end - base) / pageSize : 0;
        if (pageCount == 0 || pageCount > Integer.MAX_VALUE / 2)
        {
            throw new IllegalArgumentException("range [" + start + ", " + (start + length) +
                ") holds no whole aligned page of " + pageSize + " bytes (or too many)");
        }
        this.rangeStart = start;
        this.rangeLength = length;
        this.pageSize = pageSize;
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
        this.partitionShift = Integer.numberOfTrailingZeros(partitionSize);
        this.maxSmallBytes = SMALL_MAX_PAGES * pageSize;
        this.classes = new SizeClasses(maxSmallBytes >>> SizeClasses.UNIT_SHIFT);
        this.heap = new PageRunHeap(base, (int)pageCount, pageSize, partitionSize);
        this.slabs = new SmallExtentSlabs(heap, classes, FIRST_SLAB_KIND);
        this.reclaimer = reclaimer;
        this.liveInClass = new long[classes.classCount()];
        if (heap.largestSegmentPages() < slabs.maxSlabPages())
        {
            throw new IllegalArgumentException("range [" + start + ", " + (start + length) + ") has no " +
                slabs.maxSlabPages() + " aligned pages of " + pageSize + " bytes within one partition of " +
                partitionSize + " bytes (the largest slab)");
        }
        this.maxExtentBytes = (int)Math.min((long)SizeClasses.MAX_UNITS << SizeClasses.UNIT_SHIFT,
            (long)heap.largestSegmentPages() << pageShift);
    }

    /**
     * Allocate an extent of at least {@code bytes}, first releasing extents whose grace period has passed.
     *
     * @return the extent's arena offset (a multiple of 64), or {@link #FULL}, {@link #TOO_LARGE},
     *         {@link #INVALID_SIZE}.
     */
    public long allocate(final int bytes)
    {
        if (bytes <= 0)
        {
            return INVALID_SIZE;
        }
        if (bytes > maxExtentBytes)
        {
            return TOO_LARGE;
        }
        final long now = reclaimer.clock().nanoTime();
        if (reclaimer.hasExpired(now))
        {
            reclaimer.poll(now, releaser);
        }

        final long offset = place(bytes);
        if (offset == PageRunHeap.NIL)
        {
            return FULL;
        }
        bytesInUse += heldBytes(bytes);
        requestedBytesInUse += bytes;
        liveExtents++;
        return offset;
    }

    /**
     * Retire an extent: it becomes reusable only after the reclaimer's grace period. The bytes are left untouched.
     *
     * @param offset the arena offset {@link #allocate(int)} returned.
     * @param bytes the size asked for when it was allocated (any size held the same way is accepted: the same
     *              class, or the same number of pages).
     * @return {@link #FREED}, {@link #FREE_INVALID_OFFSET}, {@link #FREE_NOT_ALLOCATED} or {@link #FREE_SIZE_MISMATCH}.
     */
    public int free(final long offset, final int bytes)
    {
        final int page = heap.pageOf(offset);
        if (page == PageRunHeap.NIL || (offset & (SizeClasses.UNIT - 1)) != 0)
        {
            return FREE_INVALID_OFFSET;
        }
        final byte kind = heap.kind(page);
        final int held;
        if (kind == LARGE || kind == LARGE_RETIRED)
        {
            if (offset != heap.offsetOf(page))
            {
                return FREE_INVALID_OFFSET;
            }
            if (kind == LARGE_RETIRED)
            {
                return FREE_NOT_ALLOCATED;
            }
            if (bytes <= maxSmallBytes || bytes > maxExtentBytes || pagesFor(bytes) != heap.runPages(page))
            {
                return FREE_SIZE_MISMATCH;
            }
            heap.setOwnerKind(page, LARGE_RETIRED);
            held = heap.runPages(page) << pageShift;
            liveLargeExtents--;
        }
        else
        {
            final int cls = slabs.classOfExtentAt(offset, page);
            if (cls < 0)
            {
                return FREE_INVALID_OFFSET;
            }
            if (classOf(bytes) != cls)
            {
                return FREE_SIZE_MISMATCH;
            }
            if (!slabs.isAllocated(offset))
            {
                return FREE_NOT_ALLOCATED;
            }
            slabs.retire(offset);
            held = classes.sizeOfClass(cls);
            liveInClass[cls]--;
        }
        bytesInUse -= held;
        requestedBytesInUse -= bytes;
        retiredBytes += held;
        liveExtents--;
        reclaimer.retire(offset);
        return FREED;
    }

    /** Release every retired extent whose grace period has passed by {@code nowNanos}; returns how many. */
    public int poll(final long nowNanos)
    {
        return reclaimer.poll(nowNanos, releaser);
    }

    /**
     * True if freeing an extent allocated for {@code victimBytes} gives, once past its grace period, room that a
     * request of {@code wantedBytes} takes directly: an extent of the same small class, or a large run at least as
     * long. (Any other free helps only once its slab empties, or its run merges with free neighbours.)
     */
    public boolean canReuse(final int victimBytes, final int wantedBytes)
    {
        if (wantedBytes <= 0 || wantedBytes > maxExtentBytes || victimBytes <= 0 || victimBytes > maxExtentBytes)
        {
            return false;
        }
        if (wantedBytes <= maxSmallBytes)
        {
            return classes.classOf(victimBytes) == classes.classOf(wantedBytes) && victimBytes <= maxSmallBytes;
        }
        return victimBytes > maxSmallBytes && pagesFor(victimBytes) >= pagesFor(wantedBytes);
    }

    /**
     * Live extents among which {@link #canReuse} may find a victim for {@code wantedBytes}: those of its small class,
     * or all large extents for a large request; 0 if out of range.
     */
    public long liveExtentsLike(final int wantedBytes)
    {
        if (wantedBytes <= 0 || wantedBytes > maxExtentBytes)
        {
            return 0;
        }
        return wantedBytes <= maxSmallBytes ? liveInClass[classes.classOf(wantedBytes)] : liveLargeExtents;
    }

    /**
     * Choose the next eviction window for a request of {@code bytes} and show {@code visitor} every live extent
     * overlapping it. The window is a run of pages inside one partition, as long as the request needs (its class's
     * slab, or its own pages); windows move round the range like a clock hand. Its slabs are drained (no new extent
     * goes into them) and its free pages are held back for one grace period, so once every extent shown is freed and
     * past its grace period, the window's pages are free and merged into one run: a request of {@code bytes} fits.
     * The visitor must {@link #free} the extents it is shown, or some of them (an extent it keeps keeps its slab).
     * Nothing is released during the visit.
     *
     * @return the number of extents shown (0 also when {@code bytes} can never fit).
     */
    public int visitEvictionWindow(final int bytes, final ExtentVisitor visitor)
    {
        if (bytes <= 0 || bytes > maxExtentBytes)
        {
            return 0;
        }
        final int need = bytes <= maxSmallBytes ? slabs.slabPages(classes.classOf(bytes)) : pagesFor(bytes);
        final int pageCount = heap.pageCount();
        int start = evictionHand;
        for (int tries = 0; start + need > pageCount || !onePartition(start, start + need - 1); tries++)
        {
            if (tries > pageCount)
            {
                return 0;
            }
            final long nextPartition = (heap.offsetOf(start) | ((1L << partitionShift) - 1)) + 1;
            final int page = heap.pageOf(nextPartition);
            start = page == PageRunHeap.NIL || page <= start ? 0 : page;
        }

        windowVisitor = visitor;
        windowShown = 0;
        int page = start;
        final int end = start + need;
        while (page < end)
        {
            int head = heap.ownedHeadOf(page);
            if (head == PageRunHeap.NIL)
            {
                head = holdBack(heap.freeRunHeadOf(page));
            }
            else if (heap.kind(head) == LARGE)
            {
                windowShown++;
                visitor.visit(heap.offsetOf(head), heap.runPages(head) << pageShift);
            }
            else if (heap.kind(head) != LARGE_RETIRED)
            {
                slabs.visitAllocated(head, smallVisitor);
                slabs.drain(head);
            }
            page = head + heap.runPages(head);           // whole runs: a run across an edge of the window too
        }
        windowVisitor = null;
        evictionHand = page >= pageCount ? 0 : page;
        return windowShown;
    }

    /**
     * The bytes held for a request of {@code bytes}: its class size (small) or its pages (large); -1 if out of range.
     */
    public int heldBytes(final int bytes)
    {
        if (bytes <= 0 || bytes > maxExtentBytes)
        {
            return -1;
        }
        return bytes <= maxSmallBytes ? classes.sizeOfClass(classes.classOf(bytes)) : pagesFor(bytes) << pageShift;
    }

    /** The small size class {@code bytes} falls in, or -1 if it is served as a large extent or is out of range. */
    public int classOf(final int bytes)
    {
        return bytes <= maxSmallBytes ? classes.classOf(bytes) : -1;
    }

    /** The extent size of small class {@code classIndex} in bytes. */
    public int sizeOfClass(final int classIndex)
    {
        return classes.sizeOfClass(classIndex);
    }

    /** The number of small classes. */
    public int classCount()
    {
        return classes.classCount();
    }

    /** Pages in a slab of small class {@code classIndex}. */
    public int slabPages(final int classIndex)
    {
        return slabs.slabPages(classIndex);
    }

    /** The largest small extent: larger requests get their own run of pages. */
    public int maxSmallBytes()
    {
        return maxSmallBytes;
    }

    /** The largest extent this allocator hands out (2 MiB - 64 B, unless a partition or the range is smaller). */
    public int maxExtentBytes()
    {
        return maxExtentBytes;
    }

    /** Arena offset of the first page (the range start rounded up to the page size). */
    public long firstPageOffset()
    {
        return heap.base();
    }

    public long rangeStart()
    {
        return rangeStart;
    }

    public long rangeLength()
    {
        return rangeLength;
    }

    public int pageSize()
    {
        return pageSize;
    }

    public int pageCount()
    {
        return heap.pageCount();
    }

    /** Bytes of on-heap metadata held for the range (arrays only; the reclaimer's FIFO is not counted). */
    public long metadataBytes()
    {
        return heap.metadataBytes() + slabs.metadataBytes();
    }

    /** Pages in free runs: available to any class and to large extents. */
    public int freePages()
    {
        return heap.freePages();
    }

    /** Slabs currently taken from the page heap. */
    public int slabCount()
    {
        return slabs.slabCount();
    }

    /** Extents allocated and not freed. */
    public long liveExtents()
    {
        return liveExtents;
    }

    /** Large extents (own runs of pages) allocated and not freed. */
    public long liveLargeExtents()
    {
        return liveLargeExtents;
    }

    /** Bytes held for the extents allocated and not freed ({@link #heldBytes} of each). */
    public long bytesInUse()
    {
        return bytesInUse;
    }

    /** Bytes asked for by the extents allocated and not freed. */
    public long requestedBytesInUse()
    {
        return requestedBytesInUse;
    }

    /** Rounding waste of the live extents: {@link #bytesInUse()} - {@link #requestedBytesInUse()}. */
    public long bytesWasted()
    {
        return bytesInUse - requestedBytesInUse;
    }

    /** Bytes held for freed extents still in their grace period. */
    public long retiredBytes()
    {
        return retiredBytes;
    }

    /** Extents of small class {@code classIndex} that are free, past their grace period, ready for reuse. */
    public int freeExtents(final int classIndex)
    {
        return slabs.reusableExtents(classIndex);
    }

    /** True if {@code offset} is the start of an extent currently allocated (not freed). */
    public boolean isAllocated(final long offset)
    {
        final int page = heap.pageOf(offset);
        if (page == PageRunHeap.NIL || (offset & (SizeClasses.UNIT - 1)) != 0)
        {
            return false;
        }
        final byte kind = heap.kind(page);
        if (kind == LARGE || kind == LARGE_RETIRED)
        {
            return kind == LARGE && offset == heap.offsetOf(page);
        }
        return slabs.classOfExtentAt(offset, page) >= 0 && slabs.isAllocated(offset);
    }

    /** A small extent from its class's slabs, or a large one from the heap; {@link PageRunHeap#NIL} if no room. */
    private long place(final int bytes)
    {
        if (bytes <= maxSmallBytes)
        {
            final int cls = classes.classOf(bytes);
            final long offset = slabs.allocate(cls);
            if (offset != PageRunHeap.NIL)
            {
                liveInClass[cls]++;
            }
            return offset;
        }
        final int head = heap.allocate(pagesFor(bytes), LARGE);
        if (head == PageRunHeap.NIL)
        {
            return PageRunHeap.NIL;
        }
        liveLargeExtents++;
        return heap.offsetOf(head);
    }

    private int pagesFor(final int bytes)
    {
        return (bytes + pageSize - 1) >>> pageShift;
    }

    private boolean onePartition(final int firstPage, final int lastPage)
    {
        return (heap.offsetOf(firstPage) >>> partitionShift) == (heap.offsetOf(lastPage) >>> partitionShift);
    }

    /**
     * Take the free run at {@code head} and retire it like an extent: an eviction window's free pages come back
     * with its evicted extents, after the grace period, so nothing else is placed in the window meanwhile.
     */
    private int holdBack(final int head)
    {
        heap.claim(head, LARGE_RETIRED);
        retiredBytes += (long)heap.runPages(head) << pageShift;
        reclaimer.retire(heap.offsetOf(head));
        return head;
    }

    private void visitSmall(final long offset, final int classIndex)
    {
        windowShown++;
        windowVisitor.visit(offset, classes.sizeOfClass(classIndex));
    }

    private void release(final long offset)
    {
        final int page = heap.pageOf(offset);
        if (heap.kind(page) == LARGE_RETIRED && offset == heap.offsetOf(page))
        {
            retiredBytes -= (long)heap.runPages(page) << pageShift;
            heap.free(page);
            return;
        }
        retiredBytes -= classes.sizeOfClass(slabs.release(offset));
    }
}
