package io.rdmakv.server.pool;

import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.IndexBucketFlyweight;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.server.config.ServerConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Byte counts of a planned pool: index overhead per key, page size of the allocator. */
class PoolSizingTest
{
    @Test
    void shouldSizeTheIndexAtMostSixteenBytesPerKeyAtTheDesignLoad()
    {
        for (final long size : new long[]{1L << 20, 64L << 20, 1L << 30, 3L << 30})
        {
            for (final int avg : new int[]{64, 256, 1024, 4096})
            {
                final PoolGeometry g = PoolSizing.plan(size, avg);
                final double perKey = PoolSizing.indexBytesPerKey(g, avg);
                assertTrue(perKey <= PoolSizing.MAX_INDEX_BYTES_PER_KEY, size + "/" + avg + ": " + perKey);
                final double loadFactor = (double)(g.extentsLength() / avg) / (g.bucketCount() * 8);
                assertTrue(loadFactor >= 0.5, size + "/" + avg + ": load " + loadFactor);
                // Doubling the index would break the bound: this is the largest index allowed.
                if (g.bucketCount() * 2 * 64 < size / 2)
                {
                    final PoolGeometry bigger = PoolGeometry.plan(size, g.bucketCount() * 2);
                    assertTrue(PoolSizing.indexBytesPerKey(bigger, avg) > PoolSizing.MAX_INDEX_BYTES_PER_KEY);
                }
            }
        }
        // The default entry size keeps power-of-two pools well below a full index at the design load.
        for (final long size : new long[]{4L << 20, 8L << 20, 64L << 20, 1L << 30})
        {
            final PoolGeometry g = PoolSizing.plan(size, 224);
            final double loadFactor = (double)(g.extentsLength() / 224) / (g.bucketCount() * 8);
            assertTrue(loadFactor > 0.5 && loadFactor < 0.6, size + ": load " + loadFactor);
        }
    }

    /**
     * Issue #5's target, with the server's defaults: in-pool index bytes (buckets x 64 B) per key, the keys being
     * those of the design load (the extents filled with entries of {@code index.avgEntryBytes}), for every
     * power-of-two pool from 1 MiB to 256 GiB.
     */
    @Test
    void shouldCostAtMostSixteenIndexBytesPerKeyAtTheServersDefaultLoad()
    {
        final ServerConfig defaults = ServerConfig.defaults();
        final int avg = defaults.indexAvgEntryBytes();
        for (long size = 1L << 20; size <= 256L << 30; size <<= 1)
        {
            final PoolGeometry g = PoolSizing.plan(size, avg);
            final long keys = g.extentsLength() / avg;
            final long indexBytes = g.bucketCount() * IndexBucketFlyweight.BUCKET_LENGTH;
            final double perKey = (double)indexBytes / keys;
            final double loadFactor = (double)keys / (g.bucketCount() * IndexBucketFlyweight.ENTRY_COUNT);
            assertEquals(PoolSizing.indexBytesPerKey(g, avg), perKey, 1e-9);
            assertEquals(8 / loadFactor, perKey, 1e-9, "8-byte slots at that load factor");
            assertTrue(perKey <= 16, size + ": " + perKey + " B per key at load " + loadFactor);
        }
        final PoolGeometry g = PoolSizing.plan(defaults.poolSize(), avg);
        System.out.printf("index: %.2f B per key at the default load (%d B pool, %d B entries, slot load %.3f)%n",
            PoolSizing.indexBytesPerKey(g, avg), defaults.poolSize(), avg,
            (double)(g.extentsLength() / avg) / (g.bucketCount() * IndexBucketFlyweight.ENTRY_COUNT));
    }

    @Test
    void shouldGiveSmallPoolsSmallerPages()
    {
        // One page per 4096th of the extents, 1 KiB .. 4 KiB, never above a partition.
        assertEquals(1024, PoolSizing.pageSize(PoolSizing.plan(4L << 20, 224), 1 << 30));
        assertEquals(1024, PoolSizing.pageSize(PoolSizing.plan(8L << 20, 224), 1 << 30), "extents just under 8 MiB");
        assertEquals(2048, PoolSizing.pageSize(PoolSizing.plan(16L << 20, 224), 1 << 30));
        assertEquals(4096, PoolSizing.pageSize(PoolSizing.plan(32L << 20, 224), 1 << 30));
        assertEquals(4096, PoolSizing.pageSize(PoolSizing.plan(1L << 30, 224), 1 << 30));

        final EpochReclaimer reclaimer = new EpochReclaimer(0, System::nanoTime);
        final ExtentAllocator small = PoolSizing.newAllocator(PoolSizing.plan(4L << 20, 224), 1 << 30, reclaimer);
        assertEquals(1024, small.pageSize());
        assertEquals((1 << 21) - 64, small.maxExtentBytes(), "a 1 MiB value still fits a 4 MiB pool");
        final ExtentAllocator large = PoolSizing.newAllocator(PoolSizing.plan(64L << 20, 224), 1 << 30, reclaimer);
        assertEquals(ExtentAllocator.DEFAULT_PAGE_SIZE, large.pageSize());
        assertTrue(large.metadataBytes() < (64L << 20) / 100, "metadata " + large.metadataBytes());
        assertThrows(IllegalArgumentException.class, () -> PoolSizing.plan(64 * 1024, 224));
    }
}
