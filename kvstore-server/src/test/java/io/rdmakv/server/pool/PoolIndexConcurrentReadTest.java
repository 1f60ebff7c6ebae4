package io.rdmakv.server.pool;

import io.rdmakv.pool.HugePages;
import io.rdmakv.pool.PinPolicy;
import io.rdmakv.pool.PinnedArena;
import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.PoolGeometry;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Readers that follow only the layout race the single writer (updates, deletes, evictions, extent reuse after a
 * short grace period). Every value a reader accepts must be one the writer committed for THAT key: never torn, never
 * another key's. Values describe themselves (key, sequence number, fill byte) so the reader can check that alone.
 */
class PoolIndexConcurrentReadTest
{
    private static final int KEYS = 64;

    @Test
    @Timeout(60)
    void shouldNeverLetAReaderAcceptATornOrForeignValue() throws Exception
    {
        final long size = 2L << 20;
        final int partition = 1 << 20;
        try (PinnedArena arena = PinnedArena.map(size, PinPolicy.OFF, HugePages.NONE, partition))
        {
            final PoolGeometry geometry = PoolSizing.plan(size, 512);
            final EpochReclaimer reclaimer = new EpochReclaimer(5_000_000L, new SystemNanoClock()); // 5 ms grace
            final ExtentAllocator allocator = PoolSizing.newAllocator(geometry, partition, reclaimer);
            final PoolIndex index = new PoolIndex(arena.partitions(), geometry, allocator, 1, 1);

            final AtomicBoolean running = new AtomicBoolean(true);
            final AtomicReference<String> violation = new AtomicReference<>();
            final AtomicLong accepted = new AtomicLong();
            final List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++)
            {
                final Thread t = new Thread(() ->
                {
                    // Yield between the bucket read and the extent read, as a remote reader's two reads are apart.
                    final LayoutReader reader = new LayoutReader(arena.address(), (int)arena.size())
                        .betweenReads(Thread::yield);
                    final Random random = new Random();
                    while (running.get() && violation.get() == null)
                    {
                        final String key = "key-" + random.nextInt(KEYS);
                        final byte[] value = reader.get(key.getBytes(StandardCharsets.UTF_8));
                        if (value != null)
                        {
                            final String problem = check(key, value);
                            if (problem != null)
                            {
                                violation.compareAndSet(null, problem);
                            }
                            accepted.incrementAndGet();
                        }
                    }
                }, "reader-" + r);
                t.start();
                readers.add(t);
            }

            final Random random = new Random(7);
            // At least 2 s of racing, and on until both sides did enough (counts that must move, not what a fixed
            // time buys on a loaded machine); 60 s bound a hang.
            final long end = System.nanoTime() + 2_000_000_000L;
            final long giveUp = System.nanoTime() + 60_000_000_000L;
            long seq = 0;
            while ((System.nanoTime() < end || accepted.get() <= 100 || seq <= 1000) && violation.get() == null &&
                System.nanoTime() < giveUp)
            {
                final int k = random.nextInt(KEYS);
                final byte[] key = ("key-" + k).getBytes(StandardCharsets.UTF_8);
                if (random.nextInt(10) == 0)
                {
                    index.remove(key);
                }
                else
                {
                    index.put(key, valueFor("key-" + k, ++seq, 16 + random.nextInt(3000)), true);
                }
                index.reclaim(System.nanoTime());
            }
            running.set(false);
            for (final Thread t : readers)
            {
                t.join();
            }
            assertNull(violation.get());
            assertTrue(accepted.get() > 100, "readers accepted " + accepted.get() + " values");
            assertTrue(seq > 1000, "writer made " + seq + " updates");
        }
    }

    /** "key|seq|" followed by filler bytes all equal to (byte)seq. */
    private static byte[] valueFor(final String key, final long seq, final int fill)
    {
        final byte[] head = (key + "|" + seq + "|").getBytes(StandardCharsets.UTF_8);
        final byte[] value = new byte[head.length + fill];
        System.arraycopy(head, 0, value, 0, head.length);
        for (int i = head.length; i < value.length; i++)
        {
            value[i] = (byte)seq;
        }
        return value;
    }

    private static String check(final String key, final byte[] value)
    {
        final String text = new String(value, StandardCharsets.ISO_8859_1);
        if (!text.startsWith(key + "|"))
        {
            return "value of another key for " + key + ": " + text.substring(0, Math.min(24, text.length()));
        }
        final int bar = text.indexOf('|', key.length() + 1);
        if (bar < 0)
        {
            return "torn header for " + key;
        }
        final long seq = Long.parseLong(text.substring(key.length() + 1, bar));
        for (int i = bar + 1; i < value.length; i++)
        {
            if (value[i] != (byte)seq)
            {
                return "torn value for " + key + " seq " + seq + " at byte " + i;
            }
        }
        return null;
    }
}
