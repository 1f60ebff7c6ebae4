package io.rdmakv.protocol.layout;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class Crc32cTest
{
    private static final int SIZE = 4096;

    @Test
    void shouldMatchTheJdkOnViewsOfMoreByteBuffersThanItCaches()
    {
        final Random random = new Random(11);
        final int sources = Crc32c.MAX_CACHED_VIEWS + 6;
        final UnsafeBuffer[] views = new UnsafeBuffer[sources];
        final byte[][] contents = new byte[sources][SIZE];
        for (int i = 0; i < sources; i++)
        {
            random.nextBytes(contents[i]);
            final ByteBuffer memory = ByteBuffer.allocateDirect(SIZE);
            memory.put(contents[i]).clear();
            // A view that starts inside its ByteBuffer: the wrap adjustment must be honoured.
            views[i] = new UnsafeBuffer(memory, i % 64, SIZE - i % 64);
        }
        final Crc32c crc32c = new Crc32c();
        for (int round = 0; round < 2; round++)
        {
            for (int i = 0; i < sources; i++)
            {
                final int offset = (i * 7 + round) % 100;
                final int length = 1 + (i * 131 + round * 17) % (SIZE - 200);
                final CRC32C reference = new CRC32C();
                reference.update(contents[i], i % 64 + offset, length);
                assertEquals((int)reference.getValue(), crc32c.compute(views[i], offset, length),
                    "source " + i + " round " + round);
                assertEquals((int)reference.getValue(), Crc32c.software(views[i], offset, length));
            }
        }
    }

    @Test
    void shouldNotAllocateWhenAlternatingBetweenByteBuffersItHasSeen()
    {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no per-thread allocation counter here");
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "no per-thread allocation counter here");
        threads.setThreadAllocatedMemoryEnabled(true);

        // Like a reader moving between the partitions of a pool.
        final UnsafeBuffer[] partitions = new UnsafeBuffer[8];
        for (int i = 0; i < partitions.length; i++)
        {
            partitions[i] = new UnsafeBuffer(ByteBuffer.allocateDirect(SIZE));
            partitions[i].setMemory(0, SIZE, (byte)i);
        }
        final Crc32c crc32c = new Crc32c();
        int sink = 0;
        for (int i = 0; i < 20_000; i++)
        {
            sink += crc32c.compute(partitions[i & 7], 64, 1024);
        }
        final long threadId = Thread.currentThread().getId();
        final long before = threads.getThreadAllocatedBytes(threadId);
        for (int i = 0; i < 20_000; i++)
        {
            sink += crc32c.compute(partitions[i & 7], 64, 1024);
        }
        final long allocated = threads.getThreadAllocatedBytes(threadId) - before;
        // One duplicate per call would be about a megabyte; the counter itself may cost a few bytes.
        assertTrue(allocated < 4096, "20000 CRCs over 8 known ByteBuffers allocated " + allocated + " bytes");
        assertTrue(sink != 1, "keep the results alive");
    }
}
