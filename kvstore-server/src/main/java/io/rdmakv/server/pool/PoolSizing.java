package io.rdmakv.server.pool;

import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.IndexBucketFlyweight;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.layout.PoolHeaderFlyweight;

/**
 * How a pool of a given size is divided between index and extents, and the page size of its extent allocator.
 *
 * <p>Index sizing: the design load is {@code extentsLength / avgEntryBytes} keys (the pool filled with extents of the
 * expected average size). The bucket count is the LARGEST power of two whose index costs at most
 * {@link #MAX_INDEX_BYTES_PER_KEY} bytes per key at that load, i.e. a slot load factor of at least 0.5 (8-byte slots,
 * 8 per bucket). Because bucket counts are powers of two, the load factor at the design load lies in [0.5, 1.0);
 * a key whose two buckets are both full evicts one of their 16 entries (see {@link PoolIndex}).
 *
 * <p>Index overhead at the default {@code index.avgEntryBytes} of 224: a power-of-two pool is planned at a slot load
 * factor of about 0.54, so the index costs 8 B / 0.54 = about 14.9 B of pool per key (the server's CLOCK bits add
 * one byte of heap per slot, about 1.9 B per key, outside the pool).
 *
 * <p>Page size: one page per 4096th of the extents range, a power of two between 1 KiB and 4 KiB
 * ({@link ExtentAllocator#DEFAULT_PAGE_SIZE}). Every size class in use strands at most one partly used slab of at
 * most 15 pages, so small pools get small pages (1 KiB pages below 8 MiB of extents: slabs of at most 15 KiB), while
 * pools of 16 MiB and more get 4 KiB pages and under 1% of on-heap allocator metadata.
 */
public final class PoolSizing
{
    /** Index bytes per key allowed at the design load. */
    public static final int MAX_INDEX_BYTES_PER_KEY = 16;
    /** Pages per extents range below which pages get smaller than the default. */
    public static final int TARGET_PAGE_COUNT = 4096;

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

    /** Index bytes per key when the pool's extents are filled with {@code avgEntryBytes} entries. */
    public static double indexBytesPerKey(final PoolGeometry geometry, final int avgEntryBytes)
    {
        final long keys = geometry.extentsLength() / avgEntryBytes;
        final double indexBytes = geometry.bucketCount() * IndexBucketFlyweight.BUCKET_LENGTH;
        return indexBytes / Math.max(1, keys);
    }

    /**
     * Allocator page size for {@code geometry}'s extents range: {@code extentsLength / }{@link #TARGET_PAGE_COUNT}
     * rounded down to a power of two, between {@link ExtentAllocator#MIN_PAGE_SIZE} and
     * {@link ExtentAllocator#DEFAULT_PAGE_SIZE}, and never larger than a partition.
     */
    public static int pageSize(final PoolGeometry geometry, final int partitionSize)
    {
        final long perPage = Long.highestOneBit(Math.max(1, geometry.extentsLength() / TARGET_PAGE_COUNT));
        final long page = Math.max(ExtentAllocator.MIN_PAGE_SIZE, Math.min(ExtentAllocator.DEFAULT_PAGE_SIZE, perPage));
        return (int)Math.min(page, partitionSize);
    }

    /** The extent allocator of {@code geometry}'s extents range, as the server builds it. */
    public static ExtentAllocator newAllocator(
        final PoolGeometry geometry, final int partitionSize, final EpochReclaimer reclaimer)
    {
        return new ExtentAllocator(geometry.extentsOffset(), geometry.extentsLength(),
            pageSize(geometry, partitionSize), partitionSize, reclaimer);
    }
}
