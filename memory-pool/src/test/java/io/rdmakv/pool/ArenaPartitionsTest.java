package io.rdmakv.pool;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
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
    void shouldBackEveryPartitionViewWithADirectByteBufferOverTheSameMemory()
    {
        final PinnedArena arena = PinnedArena.map(3L * PARTITION + 4096, PinPolicy.OFF, HugePages.NONE, PARTITION);
        final ArenaPartitions partitions = arena.partitions();
        for (int i = 0; i < partitions.partitionCount(); i++)
        {
            final UnsafeBuffer view = partitions.partition(i);
            final ByteBuffer backing = view.byteBuffer();
            assertNotNull(backing, "partition " + i + " must be ByteBuffer-backed (for the JDK's CRC32C intrinsic)");
            assertTrue(backing.isDirect());
            assertEquals(view.capacity(), backing.capacity());
            assertEquals(0, view.wrapAdjustment());
            assertEquals(arena.address() + (long)i * PARTITION, BufferUtil.address(backing));
            view.putByte(view.capacity() - 1, (byte)(i + 1));
            assertEquals((byte)(i + 1), backing.get(view.capacity() - 1), "the ByteBuffer sees the view's writes");
        }
        arena.close();
        for (int i = 0; i < partitions.partitionCount(); i++)
        {
            assertNull(partitions.partition(i).byteBuffer(), "a closed arena leaves no ByteBuffer over unmapped memory");
            assertEquals(0, partitions.partition(i).capacity());
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
