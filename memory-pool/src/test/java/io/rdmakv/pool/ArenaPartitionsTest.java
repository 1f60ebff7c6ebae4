package io.rdmakv.pool;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArenaPartitionsTest
{
    private static final int PARTITION = 64 * 1024;

    @Test
    void shouldResolveOffsetsToPartitionAndOffsetInPartition()
    {
        try (PinnedArena arena = PinnedArena.map(16L * PARTITION + 4096, PinPolicy.OFF, HugePages.NONE, PARTITION))
        {
            final ArenaPartitions partitions = arena.partitions();
            assertEquals(17, partitions.partitionCount());
            assertEquals(PARTITION, partitions.partitionSize());
            assertEquals(PARTITION, partitions.partition(15).capacity());
            assertEquals(4096, partitions.partition(16).capacity(), "the last partition holds the remainder");

            final UnsafeBuffer whole = new UnsafeBuffer(arena.address(), (int)arena.size());
            final long[] offsets = { 0, PARTITION - 8, PARTITION, 5L * PARTITION + 1234, arena.size() - 8 };
            for (final long offset : offsets)
            {
                final int index = partitions.partitionIndex(offset);
                final int inPartition = partitions.partitionOffset(offset);
                assertEquals(offset / PARTITION, index);
                assertEquals(offset % PARTITION, inPartition);
                partitions.bufferFor(offset).putLong(inPartition, offset * 31 + 7);
                assertEquals(offset * 31 + 7, whole.getLong((int)offset), "view maps to the wrong address");
                assertEquals(arena.address() + (long)index * PARTITION, partitions.partition(index).addressOffset());
            }
        }
    }

    @Test
    void shouldTellWhetherARangeStaysInOnePartition()
    {
        final ArenaPartitions partitions = new ArenaPartitions(1L << 40, 4L * PARTITION, PARTITION);
        assertTrue(partitions.isWithinOnePartition(0, PARTITION));
        assertTrue(partitions.isWithinOnePartition(PARTITION - 64, 64));
        assertFalse(partitions.isWithinOnePartition(PARTITION - 64, 128));
        assertFalse(partitions.isWithinOnePartition(4L * PARTITION - 64, 128), "past the end");
        assertFalse(partitions.isWithinOnePartition(-64, 64));
        assertThrows(IndexOutOfBoundsException.class, () -> partitions.checkRange(PARTITION - 1, 2));
        partitions.checkRange(PARTITION, 8);
    }

    @Test
    void shouldRejectAPartitionSizeThatIsNotAPowerOfTwoOrTooLarge()
    {
        assertThrows(IllegalArgumentException.class, () -> new ArenaPartitions(4096, 4096, 3000));
        assertThrows(IllegalArgumentException.class, () -> new ArenaPartitions(4096, 4096, 32));
        assertThrows(IllegalArgumentException.class, () -> new ArenaPartitions(4096, 0, 4096));
    }
}
