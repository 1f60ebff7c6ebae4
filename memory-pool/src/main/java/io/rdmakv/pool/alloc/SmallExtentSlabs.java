package io.rdmakv.pool.alloc;

/**
 * Small extents (the {@link SizeClasses} up to 8 pages) carved from slabs: runs of whole pages taken from the
 * {@link PageRunHeap}, one size class per slab. The middle layer of the {@link ExtentAllocator}; single-writer.
 *
 * <pre>
 *   slab of class c (slabPages(c) pages = lcm(class size, page size): the class tiles it, no tail)
 *   | extent 0 | extent 1 | extent 2 | ... | extent n-1 |
 *   ^ head page: kind = firstKind + c, counts live (allocated or retired) and reusable
 *
 *   per 64-byte unit of the range, two bits (only extent starts are ever set):
 *     allocated  handed out and not freed                      (double-free and size checks)
 *     reusable   free and past its grace period: may be handed out
 *   an extent freed but still in its grace period has neither bit.
 *
 *   per class: a list of its slabs that have a reusable extent (through the heap's run links)
 * </pre>
 *
 * <p>Why slabs of {@code lcm(class, page)}: with 4 KiB pages every class up to 32 KiB tiles a slab of at most 15
 * pages exactly (a class is {@code m x 2^j} units with m &le; 16), so slabs waste nothing at their ends and are small,
 * which bounds what one class can strand: at most one partly used slab per class is needed (about 1.5 MiB over all
 * classes, against one 2 MiB slab per class before). A slab whose extents are all reusable again goes back to the
 * heap at once, where its pages merge with their free neighbours and serve any class or a large extent.
 *
 * <p>A class allocates from the first slab on its list (a slab joins at the tail when its first extent becomes
 * reusable, and leaves when it has none), the lowest reusable extent in it (a scan of the slab's bitmap words from a
 * per-slab hint below which nothing is reusable). A slab in an eviction window is {@link #drain drained}: it leaves its
 * list for good, so no new extent is placed in it, and it goes back to the heap when the last of its extents is
 * released.
 */
final class SmallExtentSlabs
{
    /** Receives live extents (see {@link #visitAllocated}). */
    @FunctionalInterface
    interface OffsetVisitor
    {
        void visit(long offset, int classIndex);
    }

    private final PageRunHeap heap;
    private final SizeClasses classes;
    private final byte firstKind;
    private final int unitsPerPageShift;

    private final int[] slabPages;
    private final int[] slabExtents;
    private final int[] listHead;
    private final int[] listTail;
    private final int[] reusableInClass;

    private final short[] live;
    private final short[] reusable;
    private final short[] scanHint;
    private final boolean[] draining;
    private final long[] allocatedBits;
    private final long[] reusableBits;
    private int slabCount;

    /**
     * @param heap where slabs come from.
     * @param classes the small classes: the largest must be a multiple of the page size, at most 8 pages.
     * @param firstKind the heap kind of a slab of class 0; class c is {@code firstKind + c}.
     */
    SmallExtentSlabs(final PageRunHeap heap, final SizeClasses classes, final byte firstKind)
    {
        this.heap = heap;
        this.classes = classes;
        this.firstKind = firstKind;
        this.unitsPerPageShift = heap.pageShift() - SizeClasses.UNIT_SHIFT;
        if (firstKind + classes.classCount() > Byte.MAX_VALUE)
        {
            throw new IllegalArgumentException("too many size classes for the page kinds: " + classes.classCount());
        }
        final int classCount = classes.classCount();
        final int pageUnits = 1 << unitsPerPageShift;
        slabPages = new int[classCount];
        slabExtents = new int[classCount];
        listHead = new int[classCount];
        listTail = new int[classCount];
        reusableInClass = new int[classCount];
        for (int c = 0; c < classCount; c++)
        {
            final int units = classes.unitsOfClass(c);
            final int lcmUnits = units / gcd(units, pageUnits) * pageUnits;
            slabPages[c] = lcmUnits >>> unitsPerPageShift;
            slabExtents[c] = lcmUnits / units;
            listHead[c] = PageRunHeap.NIL;
            listTail[c] = PageRunHeap.NIL;
        }
        if (maxExtentsPerSlab() > Short.MAX_VALUE)
        {
            throw new IllegalArgumentException("slabs of more than " + Short.MAX_VALUE + " extents: page too large");
        }
        live = new short[heap.pageCount()];
        reusable = new short[heap.pageCount()];
        scanHint = new short[heap.pageCount()];
        draining = new boolean[heap.pageCount()];
        final long units = (long)heap.pageCount() << unitsPerPageShift;
        allocatedBits = new long[(int)((units + 63) >>> 6)];
        reusableBits = new long[allocatedBits.length];
    }

    /**
     * Hand out a reusable extent of class {@code cls}, taking a fresh slab from the heap if the class has none.
     *
     * @return the extent's arena offset, or {@link PageRunHeap#NIL} if the heap has no run for a slab.
     */
    long allocate(final int cls)
    {
        int slab = listHead[cls];
        if (slab == PageRunHeap.NIL)
        {
            slab = heap.allocate(slabPages[cls], (byte)(firstKind + cls));
            if (slab == PageRunHeap.NIL)
            {
                return PageRunHeap.NIL;
            }
            carve(slab, cls);
        }
        final long from = (long)slab << unitsPerPageShift;
        final long unit = nextSet(
            reusableBits, from + scanHint[slab], from + ((long)slabPages[cls] << unitsPerPageShift));
        clear(reusableBits, unit);
        set(allocatedBits, unit);
        scanHint[slab] = (short)(unit - from + 1);
        live[slab]++;
        reusableInClass[cls]--;
        if (--reusable[slab] == 0)
        {
            unlink(slab, cls);
        }
        return heap.offsetOf(0) + (unit << SizeClasses.UNIT_SHIFT);
    }

    /**
     * The class of the slab whose extent starts at {@code offset} (page {@code page}), or -1 if no slab extent
     * starts there.
     */
    int classOfExtentAt(final long offset, final int page)
    {
        final int slab = heap.ownedHeadOf(page);
        if (slab == PageRunHeap.NIL || heap.kind(slab) < firstKind)
        {
            return -1;
        }
        final int cls = heap.kind(slab) - firstKind;
        final long inSlab = offset - heap.offsetOf(slab);
        return inSlab % classes.sizeOfClass(cls) == 0 ? cls : -1;
    }

    /** True if the extent at {@code offset} is handed out and not freed. */
    boolean isAllocated(final long offset)
    {
        return isSet(allocatedBits, unitOf(offset));
    }

    /** Freed: no longer allocated, not yet reusable (the grace period starts). */
    void retire(final long offset)
    {
        clear(allocatedBits, unitOf(offset));
    }

    /**
     * Past its grace period: the extent at {@code offset} becomes reusable, and its slab goes back to the heap if it
     * was the last one in use.
     *
     * @return the class of the extent.
     */
    int release(final long offset)
    {
        final int slab = heap.ownedHeadOf(heap.pageOf(offset));
        final int cls = heap.kind(slab) - firstKind;
        final long unit = unitOf(offset);
        set(reusableBits, unit);
        final int inSlab = (int)(unit - ((long)slab << unitsPerPageShift));
        if (inSlab < scanHint[slab])
        {
            scanHint[slab] = (short)inSlab;
        }
        if (!draining[slab])
        {
            reusableInClass[cls]++;
            if (reusable[slab] == 0)
            {
                append(slab, cls);
            }
        }
        reusable[slab]++;
        if (--live[slab] == 0)
        {
            if (draining[slab])
            {
                draining[slab] = false;
                returnToHeap(slab, cls);
            }
            else
            {
                unlink(slab, cls);
                reusableInClass[cls] -= reusable[slab];
                returnToHeap(slab, cls);
            }
        }
        return cls;
    }

    /** Call {@code visitor} for every allocated extent of the slab at {@code slab}. */
    void visitAllocated(final int slab, final OffsetVisitor visitor)
    {
        final int cls = heap.kind(slab) - firstKind;
        final long from = (long)slab << unitsPerPageShift;
        final long to = from + ((long)slabPages[cls] << unitsPerPageShift);
        for (long unit = nextSet(allocatedBits, from, to); unit < to; unit = nextSet(allocatedBits, unit + 1, to))
        {
            visitor.visit(heap.offsetOf(0) + (unit << SizeClasses.UNIT_SHIFT), cls);
        }
    }

    /**
     * Place no new extent in the slab at {@code slab} any more: it goes back to the heap once its live extents are
     * freed and released (an eviction window frees them). Idempotent.
     */
    void drain(final int slab)
    {
        if (draining[slab])
        {
            return;
        }
        final int cls = heap.kind(slab) - firstKind;
        if (reusable[slab] > 0)
        {
            unlink(slab, cls);
            reusableInClass[cls] -= reusable[slab];
        }
        draining[slab] = true;
    }

    /** True if the heap kind {@code kind} marks a slab. */
    boolean isSlabKind(final byte kind)
    {
        return kind >= firstKind;
    }

    /** Pages of a slab of class {@code cls}. */
    int slabPages(final int cls)
    {
        return slabPages[cls];
    }

    /** Extents in a slab of class {@code cls}. */
    int slabExtents(final int cls)
    {
        return slabExtents[cls];
    }

    /** The most pages any class's slab takes. */
    int maxSlabPages()
    {
        int max = 0;
        for (final int p : slabPages)
        {
            max = Math.max(max, p);
        }
        return max;
    }

    /** Reusable extents of class {@code cls} (free and past their grace period). */
    int reusableExtents(final int cls)
    {
        return reusableInClass[cls];
    }

    /** Bytes of the per-page, per-unit and per-class arrays. */
    long metadataBytes()
    {
        return (long)live.length * (3 * Short.BYTES + 1) + 2L * allocatedBits.length * Long.BYTES +
            5L * slabPages.length * Integer.BYTES;
    }

    /** Slabs taken from the heap. */
    int slabCount()
    {
        return slabCount;
    }

    private int maxExtentsPerSlab()
    {
        int max = 0;
        for (final int n : slabExtents)
        {
            max = Math.max(max, n);
        }
        return max;
    }

    private void carve(final int slab, final int cls)
    {
        final int units = classes.unitsOfClass(cls);
        final long from = (long)slab << unitsPerPageShift;
        for (int i = 0; i < slabExtents[cls]; i++)
        {
            set(reusableBits, from + (long)i * units);
        }
        live[slab] = 0;
        scanHint[slab] = 0;
        reusable[slab] = (short)slabExtents[cls];
        reusableInClass[cls] += slabExtents[cls];
        slabCount++;
        append(slab, cls);
    }

    private void returnToHeap(final int slab, final int cls)
    {
        reusable[slab] = 0;
        final long from = (long)slab << unitsPerPageShift;
        clearRange(reusableBits, from, from + ((long)slabPages[cls] << unitsPerPageShift));
        heap.free(slab);
        slabCount--;
    }

    private void append(final int slab, final int cls)
    {
        final int tail = listTail[cls];
        heap.setPrev(slab, tail);
        heap.setNext(slab, PageRunHeap.NIL);
        if (tail == PageRunHeap.NIL)
        {
            listHead[cls] = slab;
        }
        else
        {
            heap.setNext(tail, slab);
        }
        listTail[cls] = slab;
    }

    private void unlink(final int slab, final int cls)
    {
        final int before = heap.prev(slab);
        final int after = heap.next(slab);
        if (before == PageRunHeap.NIL)
        {
            listHead[cls] = after;
        }
        else
        {
            heap.setNext(before, after);
        }
        if (after == PageRunHeap.NIL)
        {
            listTail[cls] = before;
        }
        else
        {
            heap.setPrev(after, before);
        }
    }

    private long unitOf(final long offset)
    {
        return (offset - heap.offsetOf(0)) >>> SizeClasses.UNIT_SHIFT;
    }

    private static int gcd(final int a, final int b)
    {
        int x = a;
        int y = b;
        while (y != 0)
        {
            final int t = x % y;
            x = y;
            y = t;
        }
        return x;
    }

    private static boolean isSet(final long[] bits, final long index)
    {
        return (bits[(int)(index >>> 6)] & (1L << index)) != 0;
    }

    private static void set(final long[] bits, final long index)
    {
        bits[(int)(index >>> 6)] |= 1L << index;
    }

    private static void clear(final long[] bits, final long index)
    {
        bits[(int)(index >>> 6)] &= ~(1L << index);
    }

    /** The first set bit in [from, to), or {@code to} if none. */
    private static long nextSet(final long[] bits, final long from, final long to)
    {
        long index = from;
        while (index < to)
        {
            final long word = bits[(int)(index >>> 6)] & (-1L << index);
            if (word != 0)
            {
                final long found = (index & ~63L) + Long.numberOfTrailingZeros(word);
                return Math.min(found, to);
            }
            index = (index & ~63L) + 64;
        }
        return to;
    }

    /** Clear bits [from, to): whole words in between, masks at the ends. */
    private static void clearRange(final long[] bits, final long from, final long to)
    {
        if (from >= to)
        {
            return;
        }
        final int first = (int)(from >>> 6);
        final int last = (int)((to - 1) >>> 6);
        final long firstMask = -1L << from;                 // bits (from & 63)..63
        final long lastMask = -1L >>> -to;                  // bits 0..((to - 1) & 63)
        if (first == last)
        {
            bits[first] &= ~(firstMask & lastMask);
            return;
        }
        bits[first] &= ~firstMask;
        for (int word = first + 1; word < last; word++)
        {
            bits[word] = 0;
        }
        bits[last] &= ~lastMask;
    }
}
