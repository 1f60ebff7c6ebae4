package io.rdmakv.server.pool;

import io.rdmakv.pool.HugePages;
import io.rdmakv.pool.PinPolicy;
import io.rdmakv.pool.PinnedArena;
import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.IndexBucketFlyweight;
import io.rdmakv.protocol.layout.PoolGeometry;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PoolIndexInitTest
{
    @Test
    void shouldZeroAWholeIndexThatSpansSeveralPartitionsOfAReusedArena()
    {
        final int partition = 64 * 1024;
        final long size = 4L << 20;
        try (PinnedArena arena = PinnedArena.map(size, PinPolicy.OFF, HugePages.NONE, partition))
        {
            final PoolGeometry geometry = PoolSizing.plan(size, 64);
            final long indexBytes = geometry.bucketCount() * IndexBucketFlyweight.BUCKET_LENGTH;
            assertTrue(indexBytes > 2L * partition, "the index spans partitions: " + geometry);
            for (int p = 0; p < arena.partitions().partitionCount(); p++)
            {
                arena.partitions().partition(p).setMemory(0, partition, (byte)0xFF); // garbage from an earlier use
            }
            final ExtentAllocator allocator =
                PoolSizing.newAllocator(geometry, partition, new EpochReclaimer(0, () -> 0));
            final PoolIndex index = new PoolIndex(arena.partitions(), geometry, allocator, 1, 1);

            for (long off = geometry.indexOffset(); off < geometry.indexOffset() + indexBytes; off += 8)
            {
                assertEquals(0, arena.partitions().bufferFor(off).getLong(arena.partitions().partitionOffset(off)),
                    "index byte " + off);
            }
            final long after = geometry.indexOffset() + indexBytes;
            if (after < geometry.extentsOffset())
            {
                assertEquals((byte)0xFF, arena.partitions().bufferFor(after).getByte(
                    arena.partitions().partitionOffset(after)), "nothing after the index is touched");
            }
            final LayoutReader reader = new LayoutReader(arena.address(), (int)arena.size());
            assertEquals(0, reader.keyCount());
            final byte[] key = "k".getBytes(StandardCharsets.US_ASCII);
            assertEquals(PoolIndex.STORED, index.put(key, key, false));
            assertEquals("k", new String(reader.get(key), StandardCharsets.US_ASCII));
        }
    }
}
