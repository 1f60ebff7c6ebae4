package io.rdmakv.pool.alloc;

import org.agrona.BitUtil;
import org.agrona.collections.LongArrayList;

/**
 * A slab allocator for value extents in an arena byte range {@code [start, start + length)} (arena-relative
 * offsets). <b>Single-writer:</b> the server's one writer thread calls every method; nothing here is thread-safe.
 *
 * <pre>
 *   arena:  | start .. unused head | slab 0 | slab 1 | ... | slab n-1 | unused tail .. start+length |
 *                                  ^ aligned to slabSize (a power of two no larger than the partition size,
 *                                    so no slab, and hence no extent, ever crosses a partition boundary)
 *   slab (carved for one size class c):
 *           | extent 0 | extent 1 | ... | extent k-1 | tail &lt; c |
 * </pre>
 *
 * <p>Every offset and size handed out is a multiple of 64 bytes. {@link #allocate(int)} rounds up to a
 * {@link SizeClasses size class}, takes a reusable extent of that class, else carves the next extent of the class's
 * current slab, else carves a fresh slab from the free-slab stack, else returns {@link #FULL}. {@link #free(long, int)}
 * does not make the extent reusable: it goes to the {@link EpochReclaimer} and comes back only after the grace
 * period (see there why). A slab whose extents are all free again, past their grace, returns to the free-slab stack
 * and can be carved for another class, so memory is not stranded in a class the workload no longer uses.
 *
 * <p><b>Fragmentation bound.</b> Memory held is (slabs in use) x slabSize. Of that, waste is
 * (a) rounding: under 12.5% of the request above 1 KiB, under 64 B below ({@link SizeClasses});
 * (b) slab tails: under one class size per slab, i.e. under 1/9 of a slab for classes up to slabSize/8, but up to
 *     about half a slab for extents above slabSize/3 (a 1.06 MiB extent alone in a 2 MiB slab): pick a larger
 *     slab (still no larger than the partition) for large-value workloads;
 * (c) partly free slabs: in the worst case one live extent keeps a whole slab, so held memory is bounded only by
 *     min(range, live extents x slabSize). Reuse is LIFO within a class, which refills recently freed slots first.
 *
 * <p>On-heap metadata: one bit per 64-byte unit of the range (double-free detection), a few ints per slab, and per
 * class a stack of reusable extents that grows by doubling (amortised; stale entries of returned slabs are
 * dropped lazily and compacted when they outnumber the valid ones).
 */
public final class ExtentAllocator
{
    /** {@link #allocate(int)}: no extent of that class is free and no slab is left. Try again after frees + grace. */
    public static final long FULL = -1;
    /** {@link #allocate(int)}: larger than {@link #maxExtentBytes()}. */
    public static final long TOO_LARGE = -2;
    /** {@link #allocate(int)}: zero or negative size. */
    public static final long INVALID_SIZE = -3;

    /** {@link #free(long, int)}: retired; reusable after the grace period. */
    public static final int FREED = 0;
    /** {@link #free(long, int)}: the offset is not the start of an extent carved by this allocator. */
    public static final int FREE_INVALID_OFFSET = -1;
    /** {@link #free(long, int)}: the extent is not allocated (double free, or never allocated). */
    public static final int FREE_NOT_ALLOCATED = -2;
    /** {@link #free(long, int)}: the size does not belong to the extent's size class. */
    public static final int FREE_SIZE_MISMATCH = -3;

    /** Default slab size: 2 MiB. */
    public static final int DEFAULT_SLAB_SIZE = 2 << 20;

    private static final int GEN_SHIFT = 34;
    private static final long UNIT_MASK = (1L << GEN_SHIFT) - 1;
    private static final int NO_SLAB = -1;

    private final SizeClasses classes;
    private final EpochReclaimer reclaimer;
    private final EpochReclaimer.Releaser releaser = this::release;
    private final long rangeStart;
    private final long rangeLength;
    private final long base;
    private final int slabSize;
    private final int slabShift;
    private final int slabCount;

    private final int[] slabClass;
    private final int[] slabGen;
    private final int[] slabLive;
    private final int[] slabCarved;
    private final int[] slabListed;
    private final int[] freeSlabs;
    private int freeSlabCount;

    private final LongArrayList[] freeLists;
    private final int[] freeCount;
    private final int[] carvingSlab;
    private final long[] allocatedBits;

    private long bytesInUse;
    private long requestedBytesInUse;
    private long retiredBytes;
    private long liveExtents;
    private long slabTailBytes;

    /**
     * @param start arena offset of the range, a multiple of 64.
     * @param length bytes in the range.
     * @param slabSize a power of two, at least 1 KiB, no larger than {@code partitionSize}.
     * @param partitionSize the arena's partition size (a power of two): slabs are aligned so none crosses one.
     * @param reclaimer holds freed extents for the grace period.
     */
    public ExtentAllocator(
        final long start,
        final long length,
        final int slabSize,
        final int partitionSize,
        final EpochReclaimer reclaimer)
    {
        if (start < 0 || (start & (SizeClasses.UNIT - 1)) != 0 || length <= 0)
        {
            throw new IllegalArgumentException("range must start at a non-negative multiple of 64 and be non-empty: " +
                "start=" + start + " length=" + length);
        }
        if (!BitUtil.isPowerOfTwo(slabSize) || slabSize < 1024 || !BitUtil.isPowerOfTwo(partitionSize) ||
            slabSize > partitionSize)
        {
            throw new IllegalArgumentException("slabSize must be a power of two >= 1024 and <= partitionSize " +
                "(a power of two): slabSize=" + slabSize + " partitionSize=" + partitionSize);
        }
        this.rangeStart = start;
        this.rangeLength = length;
        this.base = (start + slabSize - 1) & -(long)slabSize;
        final long end = (start + length) & -(long)slabSize;
        final long slabs = end > base ? (end - base) / slabSize : 0;
        if (slabs == 0 || slabs > Integer.MAX_VALUE / 2)
        {
            throw new IllegalArgumentException("range [" + start + ", " + (start + length) +
                ") holds no whole aligned slab of " + slabSize + " bytes (or too many)");
        }
        this.slabSize = slabSize;
        this.slabShift = Integer.numberOfTrailingZeros(slabSize);
        this.slabCount = (int)slabs;
        this.classes = new SizeClasses(Math.min(SizeClasses.MAX_UNITS, slabSize >>> SizeClasses.UNIT_SHIFT));
        this.reclaimer = reclaimer;

        slabClass = new int[slabCount];
        slabGen = new int[slabCount];
        slabLive = new int[slabCount];
        slabCarved = new int[slabCount];
        slabListed = new int[slabCount];
        freeSlabs = new int[slabCount];
        for (int i = 0; i < slabCount; i++)
        {
            slabClass[i] = NO_SLAB;
            freeSlabs[i] = slabCount - 1 - i;
        }
        freeSlabCount = slabCount;

        final int classCount = classes.classCount();
        freeLists = new LongArrayList[classCount];
        freeCount = new int[classCount];
        carvingSlab = new int[classCount];
        for (int c = 0; c < classCount; c++)
        {
            freeLists[c] = new LongArrayList(64, Long.MIN_VALUE);
            carvingSlab[c] = NO_SLAB;
        }
        final long units = ((long)slabCount * slabSize) >>> SizeClasses.UNIT_SHIFT;
        allocatedBits = new long[(int)((units + 63) >>> 6)];
    }

    /**
     * Allocate an extent of at least {@code bytes}, first releasing extents whose grace period has passed.
     *
     * @return the extent's arena offset (a multiple of 64), or {@link #FULL}, {@link #TOO_LARGE},
     *         {@link #INVALID_SIZE}.
     */
    public long allocate(final int bytes)
    {
        final int cls = classes.classOf(bytes);
        if (cls < 0)
        {
            return bytes <= 0 ? INVALID_SIZE : TOO_LARGE;
        }
        final long now = reclaimer.clock().nanoTime();
        if (reclaimer.hasExpired(now))
        {
            reclaimer.poll(now, releaser);
        }

        final LongArrayList list = freeLists[cls];
        while (!list.isEmpty())
        {
            final long entry = list.popLong();
            final long unit = entry & UNIT_MASK;
            final int slab = (int)(unit >>> (slabShift - SizeClasses.UNIT_SHIFT));
            if (slabGen[slab] == (int)(entry >>> GEN_SHIFT) && slabClass[slab] == cls)
            {
                freeCount[cls]--;
                slabListed[slab]--;
                return take(slab, unit, bytes, cls);
            }
        }

        int slab = carvingSlab[cls];
        final int perSlab = slabSize / classes.sizeOfClass(cls);
        if (slab == NO_SLAB || slabCarved[slab] == perSlab)
        {
            if (freeSlabCount == 0)
            {
                return FULL;
            }
            slab = freeSlabs[--freeSlabCount];
            slabClass[slab] = cls;
            slabCarved[slab] = 0;
            carvingSlab[cls] = slab;
            slabTailBytes += slabSize - (long)perSlab * classes.sizeOfClass(cls);
        }
        final long unit = ((long)slab << (slabShift - SizeClasses.UNIT_SHIFT)) +
            (long)slabCarved[slab] * classes.unitsOfClass(cls);
        slabCarved[slab]++;
        return take(slab, unit, bytes, cls);
    }

    /**
     * Retire an extent: it becomes reusable only after the reclaimer's grace period. The bytes are left untouched.
     *
     * @param offset the arena offset {@link #allocate(int)} returned.
     * @param bytes the size asked for when it was allocated (any size of the same class is accepted).
     * @return {@link #FREED}, {@link #FREE_INVALID_OFFSET}, {@link #FREE_NOT_ALLOCATED} or {@link #FREE_SIZE_MISMATCH}.
     */
    public int free(final long offset, final int bytes)
    {
        final long rel = offset - base;
        if (rel < 0 || rel >= ((long)slabCount << slabShift) || (rel & (SizeClasses.UNIT - 1)) != 0)
        {
            return FREE_INVALID_OFFSET;
        }
        final int slab = (int)(rel >>> slabShift);
        final int cls = slabClass[slab];
        if (cls == NO_SLAB)
        {
            return FREE_INVALID_OFFSET;
        }
        final long inSlab = rel & (slabSize - 1);
        final int classBytes = classes.sizeOfClass(cls);
        if (inSlab % classBytes != 0 || inSlab / classBytes >= slabCarved[slab])
        {
            return FREE_INVALID_OFFSET;
        }
        if (classes.classOf(bytes) != cls)
        {
            return FREE_SIZE_MISMATCH;
        }
        final long unit = rel >>> SizeClasses.UNIT_SHIFT;
        final int word = (int)(unit >>> 6);
        final long bit = 1L << unit;
        if ((allocatedBits[word] & bit) == 0)
        {
            return FREE_NOT_ALLOCATED;
        }
        allocatedBits[word] &= ~bit;
        bytesInUse -= classBytes;
        requestedBytesInUse -= bytes;
        retiredBytes += classBytes;
        liveExtents--;
        reclaimer.retire(offset);
        return FREED;
    }

    /** Release every retired extent whose grace period has passed by {@code nowNanos}; returns how many. */
    public int poll(final long nowNanos)
    {
        return reclaimer.poll(nowNanos, releaser);
    }

    /** The size class {@code bytes} falls in, or -1 if it is out of range. */
    public int classOf(final int bytes)
    {
        return classes.classOf(bytes);
    }

    /** The extent size of class {@code classIndex} in bytes. */
    public int sizeOfClass(final int classIndex)
    {
        return classes.sizeOfClass(classIndex);
    }

    public int classCount()
    {
        return classes.classCount();
    }

    /** The largest extent this allocator hands out (2 MiB - 64 B with slabs of 2 MiB or more). */
    public int maxExtentBytes()
    {
        return classes.maxBytes();
    }

    /** Arena offset of the first slab (the range start rounded up to the slab size). */
    public long firstSlabOffset()
    {
        return base;
    }

    public long rangeStart()
    {
        return rangeStart;
    }

    public long rangeLength()
    {
        return rangeLength;
    }

    public int slabSize()
    {
        return slabSize;
    }

    public int slabCount()
    {
        return slabCount;
    }

    /** Slabs currently carved for some class. */
    public int slabsInUse()
    {
        return slabCount - freeSlabCount;
    }

    /** Extents allocated and not freed. */
    public long liveExtents()
    {
        return liveExtents;
    }

    /** Class bytes of the extents allocated and not freed. */
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

    /** Bytes at the ends of carved slabs that no extent of their class fits in. */
    public long slabTailBytes()
    {
        return slabTailBytes;
    }

    /** Class bytes of freed extents still in their grace period. */
    public long retiredBytes()
    {
        return retiredBytes;
    }

    /** Extents of class {@code classIndex} freed, past their grace period, ready for reuse. */
    public int freeExtents(final int classIndex)
    {
        return freeCount[classIndex];
    }

    /** True if {@code offset} is the start of an extent currently allocated (not freed). */
    public boolean isAllocated(final long offset)
    {
        final long rel = offset - base;
        if (rel < 0 || rel >= ((long)slabCount << slabShift) || (rel & (SizeClasses.UNIT - 1)) != 0)
        {
            return false;
        }
        final long unit = rel >>> SizeClasses.UNIT_SHIFT;
        return (allocatedBits[(int)(unit >>> 6)] & (1L << unit)) != 0;
    }

    private long take(final int slab, final long unit, final int bytes, final int cls)
    {
        allocatedBits[(int)(unit >>> 6)] |= 1L << unit;
        slabLive[slab]++;
        bytesInUse += classes.sizeOfClass(cls);
        requestedBytesInUse += bytes;
        liveExtents++;
        return base + (unit << SizeClasses.UNIT_SHIFT);
    }

    private void release(final long offset)
    {
        final long rel = offset - base;
        final int slab = (int)(rel >>> slabShift);
        final int cls = slabClass[slab];
        retiredBytes -= classes.sizeOfClass(cls);
        if (--slabLive[slab] == 0)
        {
            releaseSlab(slab, cls);
            return;
        }
        freeLists[cls].addLong(((long)slabGen[slab] << GEN_SHIFT) | (rel >>> SizeClasses.UNIT_SHIFT));
        freeCount[cls]++;
        slabListed[slab]++;
    }

    private void releaseSlab(final int slab, final int cls)
    {
        freeCount[cls] -= slabListed[slab];
        slabListed[slab] = 0;
        slabGen[slab] = (slabGen[slab] + 1) & ((1 << (64 - GEN_SHIFT)) - 1);
        slabClass[slab] = NO_SLAB;
        slabTailBytes -= slabSize - (long)(slabSize / classes.sizeOfClass(cls)) * classes.sizeOfClass(cls);
        slabCarved[slab] = 0;
        if (carvingSlab[cls] == slab)
        {
            carvingSlab[cls] = NO_SLAB;
        }
        freeSlabs[freeSlabCount++] = slab;

        final LongArrayList list = freeLists[cls];
        if (list.size() > 2 * freeCount[cls] + 64)
        {
            compact(list, cls);
        }
    }

    private void compact(final LongArrayList list, final int cls)
    {
        int kept = 0;
        final int size = list.size();
        for (int i = 0; i < size; i++)
        {
            final long entry = list.getLong(i);
            final int slab = (int)((entry & UNIT_MASK) >>> (slabShift - SizeClasses.UNIT_SHIFT));
            if (slabGen[slab] == (int)(entry >>> GEN_SHIFT) && slabClass[slab] == cls)
            {
                list.setLong(kept++, entry);
            }
        }
        while (list.size() > kept)
        {
            list.removeAt(list.size() - 1);
        }
    }
}
