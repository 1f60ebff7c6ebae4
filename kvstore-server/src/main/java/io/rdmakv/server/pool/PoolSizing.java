package io.rdmakv.server.pool;

import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.IndexBucketFlyweight;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.layout.ValueExtentFlyweight;

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
        if (poolSize < PoolGeometry.MIN_INDEX_OFFSET + IndexBucketFlyweight.BUCKET_LENGTH + 64 * 1024)
        {
            throw new IllegalArgumentException("pool of " + poolSize + " bytes is too small (at least 196 KiB: header, " +
                "slot ownership table, one bucket, 64 KiB of extents)");
        }
        if (avgEntryBytes < 64)
        {
            throw new IllegalArgumentException("average entry must be at least 64 bytes: " + avgEntryBytes);
        }
        PoolGeometry best = PoolGeometry.plan(poolSize, 1);
        for (long buckets = 2; ; buckets <<= 1)
        {
            if (buckets > (poolSize - PoolGeometry.MIN_INDEX_OFFSET) / IndexBucketFlyweight.BUCKET_LENGTH / 2)
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
    /**
     * A pool size (whole MiB, found in steps of under 1%, so within 1% of the smallest) that holds {@code keys}
     * entries of {@code keyBytes} + {@code valueBytes} (e.g. a data set to load at start-up) with {@link #plan} sizing
     * the index for {@code avgEntryBytes} and {@link #newAllocator} laying out the extents: every extent, as the
     * allocator holds it (its size class in whole slabs, or its own run of pages), fits in the pages of the extents
     * range with one unit of slack per partition (runs never cross a partition boundary), and the index is at most
     * half full (two 8-slot buckets per key then practically never both fill).
     *
     * @throws IllegalArgumentException when an entry is larger than the largest extent.
     */
    public static long poolSizeFor(
        final long keys, final int keyBytes, final int valueBytes, final int avgEntryBytes, final int partitionSize)
    {
        final int request = ValueExtentFlyweight.requiredLength(keyBytes, valueBytes);
        final long mib = 1L << 20;
        long size = Math.max(2 * mib, (keys * request) & -mib);
        ExtentAllocator probe = null;
        while (true)
        {
            final PoolGeometry g = plan(size, avgEntryBytes);
            final int page = pageSize(g, partitionSize);
            if (probe == null || probe.pageSize() != page)
            {
                // A small allocator with this page size answers the class arithmetic (size class, slab pages).
                probe = new ExtentAllocator(
                    0, Math.max(64L * page, 2L * ExtentAllocator.SMALL_MAX_PAGES * page + 2L * request), page,
                    partitionSize, new EpochReclaimer(0, System::nanoTime));
            }
            final int held = probe.heldBytes(request);
            if (held < 0)
            {
                throw new IllegalArgumentException("an entry of " + keyBytes + " + " + valueBytes + " bytes is " +
                    "larger than the largest extent (" + probe.maxExtentBytes() + " bytes)");
            }
            final int cls = probe.classOf(request);
            final long unitPages = cls >= 0 ? probe.slabPages(cls) : held / page;
            final long perUnit = cls >= 0 ? unitPages * page / held : 1;
            final long pagesNeeded = (keys + perUnit - 1) / perUnit * unitPages;
            final long partitions = (g.extentsOffset() + g.extentsLength() + partitionSize - 1) / partitionSize;
            final long pages = g.extentsLength() / page - 1;
            if (pages >= pagesNeeded + unitPages * (partitions + 1) &&
                g.bucketCount() * IndexBucketFlyweight.ENTRY_COUNT / 2 >= keys)
            {
                return size;
            }
            size += Math.max(mib, (size >>> 7) & -mib);
        }
    }
}
