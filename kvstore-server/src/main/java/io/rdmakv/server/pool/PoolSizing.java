package io.rdmakv.server.pool;

import io.rdmakv.pool.alloc.SizeClasses;
import io.rdmakv.protocol.layout.IndexBucketFlyweight;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.layout.PoolHeaderFlyweight;
import io.rdmakv.protocol.layout.ValueExtentFlyweight;

/**
 * How a pool of a given size is divided between index and extents, and the slab size of its allocator.
 *
 * <p>Index sizing: the design load is {@code extentsLength / avgEntryBytes} keys (the pool filled with extents of the
 * expected average size). The bucket count is the LARGEST power of two whose index costs at most
 * {@link #MAX_INDEX_BYTES_PER_KEY} bytes per key at that load, i.e. a slot load factor of at least 0.5 (8-byte slots,
 * 8 per bucket). Because bucket counts are powers of two, the load factor at the design load lies in [0.5, 1.0);
 * a key whose two buckets are both full evicts one of their 16 entries (see {@link PoolIndex}).
 */
public final class PoolSizing
{
    /** Index bytes per key allowed at the design load. */
    public static final int MAX_INDEX_BYTES_PER_KEY = 16;
    /** Smallest slab the server uses: small pools in tests still get many slabs. */
    public static final int MIN_SLAB_SIZE = 64 * 1024;
    /** Largest slab: the allocator's classes stop at 2 MiB - 64 B anyway. */
    public static final int MAX_SLAB_SIZE = 2 * 1024 * 1024;

    private PoolSizing()
    {
    }

    /**
     * Plan the geometry of a pool of {@code poolSize} bytes for entries of {@code avgEntryBytes} on average.
     *
     * @throws IllegalArgumentException when the pool is too small to hold a header, one bucket and some extents.
     */
    public static PoolGeometry plan(final long poolSize, final int avgEntryBytes)
    {
        if (poolSize < PoolHeaderFlyweight.HEADER_LENGTH + IndexBucketFlyweight.BUCKET_LENGTH + 64 * 1024)
        {
            throw new IllegalArgumentException("pool of " + poolSize + " bytes is too small (at least 68 KiB)");
        }
        if (avgEntryBytes < 64)
        {
            throw new IllegalArgumentException("average entry must be at least 64 bytes: " + avgEntryBytes);
        }
        PoolGeometry best = PoolGeometry.plan(poolSize, 1);
        for (long buckets = 2; ; buckets <<= 1)
        {
            if (buckets > (poolSize - PoolHeaderFlyweight.HEADER_LENGTH) / IndexBucketFlyweight.BUCKET_LENGTH / 2)
            {
                break;
            }
            final PoolGeometry candidate = PoolGeometry.plan(poolSize, buckets);
            final long designKeys = candidate.extentsLength() / avgEntryBytes;
            if (designKeys == 0 || buckets * IndexBucketFlyweight.BUCKET_LENGTH > designKeys * MAX_INDEX_BYTES_PER_KEY)
            {
                break;
            }
            best = candidate;
        }
        return best;
    }

    /**
     * A pool size (whole MiB, found in steps of under 1%, so within 1% of the smallest) that holds {@code keys}
     * entries of {@code keyBytes} + {@code valueBytes} (e.g. a data set to load at start-up) with {@link #plan} sizing
     * the index for {@code avgEntryBytes}: every extent, rounded up to its size class, fits in the whole slabs of the
     * extents range, and the index is at most half full (two 8-slot buckets per key then practically never both fill).
     *
     * @throws IllegalArgumentException when an entry does not fit a slab of {@code slabSize}.
     */
    public static long poolSizeFor(
        final long keys, final int keyBytes, final int valueBytes, final int avgEntryBytes, final int slabSize)
    {
        final SizeClasses classes =
            new SizeClasses(Math.min(SizeClasses.MAX_UNITS, slabSize >>> SizeClasses.UNIT_SHIFT));
        final int cls = classes.classOf(ValueExtentFlyweight.requiredLength(keyBytes, valueBytes));
        if (cls < 0)
        {
            throw new IllegalArgumentException("an entry of " + keyBytes + " + " + valueBytes + " bytes does not fit " +
                "a slab of " + slabSize + " bytes");
        }
        final long slab = slabSize;
        final long perSlab = slab / classes.sizeOfClass(cls);
        final long slabsNeeded = (keys + perSlab - 1) / perSlab;
        final long mib = 1L << 20;
        long size = Math.max(2 * mib, ((slabsNeeded + 1) * slab + mib - 1) & -mib);
        while (true)
        {
            final PoolGeometry g = plan(size, avgEntryBytes);
            final long firstSlab = (g.extentsOffset() + slab - 1) & -slab;
            final long slabsEnd = (g.extentsOffset() + g.extentsLength()) & -slab;
            if ((slabsEnd - firstSlab) / slab >= slabsNeeded &&
                g.bucketCount() * IndexBucketFlyweight.SLOT_COUNT / 2 >= keys)
            {
                return size;
            }
            size += Math.max(mib, (size >>> 7) & -mib);
        }
    }

    /** Index bytes per key when the pool's extents are filled with {@code avgEntryBytes} entries. */
    public static double indexBytesPerKey(final PoolGeometry geometry, final int avgEntryBytes)
    {
        final long keys = geometry.extentsLength() / avgEntryBytes;
        final double indexBytes = geometry.bucketCount() * IndexBucketFlyweight.BUCKET_LENGTH;
        return indexBytes / Math.max(1, keys);
    }

    /**
     * Slab size for extents up to {@code maxKeyBytes + maxValueBytes}: the next power of two of the largest extent,
     * between {@link #MIN_SLAB_SIZE} and {@link #MAX_SLAB_SIZE}, and never larger than a partition.
     */
    public static int slabSize(final int maxKeyBytes, final int maxValueBytes, final int partitionSize)
    {
        final int largest = ValueExtentFlyweight.requiredLength(maxKeyBytes, maxValueBytes);
        int slab = MIN_SLAB_SIZE;
        while (slab < largest && slab < MAX_SLAB_SIZE)
        {
            slab <<= 1;
        }
        return Math.min(slab, partitionSize);
    }
}
