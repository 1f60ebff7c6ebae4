package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The argument for cached one-read GETs, tested: writers publish ever higher versions of a few hot keys while
 * readers with warm location caches GET them. A read must never return a version older than one whose PUT was
 * acknowledged before the read started (that would be a stale cached value), nor one never sent, nor a damaged one.
 * Run with the default grace period and with extents reused the moment they are freed.
 */
class CachedGetLinearizabilityTest
{
    private static final int KEYS = 8;
    private static final int WRITERS = 2;
    private static final int READERS = 2;

    @TempDir
    Path dir;

    /**
     * On tcp the emulated reads are answered by the node's event loop, the writer's own thread; on shm the readers
     * copy out of the pool while the writer writes it, so there the race is real.
     */
    @ParameterizedTest(name = "{0}, grace {1} ms")
    @CsvSource({"tcp, 100", "tcp, 0", "shm, 100", "shm, 0"})
    @Timeout(60)
    void shouldNeverReturnAVersionOlderThanOneAcknowledgedBeforeTheReadStarted(final String transport,
        final int graceMillis) throws Exception
    {
        try (KvServer server = InProcessNode.start(dir,
                Map.of("pool.reclaimGraceMs", String.valueOf(graceMillis), "transport", transport));
             KvClient writerClient = InProcessNode.client(server).transport(transport).build();
             KvClient readerClient = InProcessNode.client(server).transport(transport).build())
        {
            final AtomicLongArray sent = new AtomicLongArray(KEYS);
            final AtomicLongArray acknowledged = new AtomicLongArray(KEYS);
            for (int k = 0; k < KEYS; k++)
            {
                writerClient.put(key(k), value(k, 0));
            }
            final AtomicBoolean running = new AtomicBoolean(true);
            final AtomicLong reads = new AtomicLong();
            final AtomicLong stale = new AtomicLong();
            final AtomicLong never = new AtomicLong();
            final AtomicLong damaged = new AtomicLong();
            final ConcurrentLinkedQueue<String> examples = new ConcurrentLinkedQueue<>();
            final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            final List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++)
            {
                final int writer = w;
                threads.add(new Thread(() -> guard(failures, running, () ->
                {
                    while (running.get())
                    {
                        for (int k = writer; k < KEYS && running.get(); k += WRITERS)
                        {
                            final long version = sent.get(k) + 1;
                            sent.set(k, version); // before the PUT: an upper bound for any reader
                            writerClient.put(key(k), value(k, version));
                            acknowledged.set(k, version); // after the answer: a lower bound for later reads
                        }
                    }
                }), "writer-" + w));
            }
            for (int r = 0; r < READERS; r++)
            {
                threads.add(new Thread(() -> guard(failures, running, () ->
                {
                    final ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (running.get())
                    {
                        final int k = random.nextInt(KEYS);
                        final long floor = acknowledged.get(k);
                        final byte[] got = readerClient.get(key(k));
                        final long ceiling = sent.get(k);
                        reads.incrementAndGet();
                        final long version = versionOf(k, got);
                        if (version < 0)
                        {
                            damaged.incrementAndGet();
                            note(examples, "key " + k + ": damaged or foreign value");
                        }
                        else if (version < floor)
                        {
                            stale.incrementAndGet();
                            note(examples, "key " + k + ": version " + version + " after " + floor + " was acked");
                        }
                        else if (version > ceiling)
                        {
                            never.incrementAndGet();
                            note(examples, "key " + k + ": version " + version + " never sent");
                        }
                    }
                }), "reader-" + r));
            }
            threads.forEach(Thread::start);
            // Until the readers read enough, warm caches served some of it and the writers superseded remembered
            // locations under them (counts that must move; the deadline only bounds a hang), not for a fixed time.
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            while ((reads.get() <= 500 || readerClient.stats().client(ClientCounter.GET_CACHE_HITS) == 0 ||
                readerClient.stats().client(ClientCounter.GET_CACHE_INVALIDATIONS) == 0) && failures.isEmpty() &&
                System.nanoTime() - deadline < 0)
            {
                Thread.sleep(10);
            }
            running.set(false);
            for (final Thread t : threads)
            {
                t.join(10_000);
            }
            assertTrue(failures.isEmpty(), () -> "a thread failed: " + failures);
            final KvStats stats = readerClient.stats();
            final String summary = "reads=" + reads + " stale=" + stale + " neverSent=" + never + " damaged=" +
                damaged + " cacheHits=" + stats.client(ClientCounter.GET_CACHE_HITS) + " invalidations=" +
                stats.client(ClientCounter.GET_CACHE_INVALIDATIONS) + " misses=" +
                stats.client(ClientCounter.GET_CACHE_MISSES) + " examples=" + examples;
            System.out.println("grace " + graceMillis + " ms: " + summary);
            assertEquals(0, stale.get(), summary);
            assertEquals(0, never.get(), summary);
            assertEquals(0, damaged.get(), summary);
            assertTrue(reads.get() > 500, "readers really read: " + summary);
            assertTrue(stats.client(ClientCounter.GET_CACHE_HITS) > 0, "warm caches served reads: " + summary);
            assertTrue(stats.client(ClientCounter.GET_CACHE_INVALIDATIONS) > 0,
                "the writers superseded remembered locations under the readers: " + summary);
        }
    }

    private static void guard(final ConcurrentLinkedQueue<Throwable> failures, final AtomicBoolean running,
        final Runnable body)
    {
        try
        {
            body.run();
        }
        catch (final Throwable t)
        {
            failures.add(t);
            running.set(false);
        }
    }

    private static byte[] key(final int k)
    {
        return bytes("hot-" + k);
    }

    /** key (4 B) | version (8 B) | filler derived from both; lengths vary so several size classes are reused. */
    private static byte[] value(final int k, final long version)
    {
        final int length = 16 + (int)(version % 7) * 150;
        final ByteBuffer b = ByteBuffer.allocate(length).putInt(k).putLong(version);
        while (b.hasRemaining())
        {
            b.put(filler(k, version));
        }
        return b.array();
    }

    /** The version a value carries, or -1 when it is not an intact value of key {@code k}. */
    private static long versionOf(final int k, final byte[] value)
    {
        if (value == null || value.length < 12)
        {
            return -1;
        }
        final ByteBuffer b = ByteBuffer.wrap(value);
        final long version = b.position(4).getLong();
        if (ByteBuffer.wrap(value).getInt() != k || value.length != 16 + (int)(version % 7) * 150)
        {
            return -1;
        }
        for (int i = 12; i < value.length; i++)
        {
            if (value[i] != filler(k, version))
            {
                return -1;
            }
        }
        return version;
    }

    private static byte filler(final int k, final long version)
    {
        return (byte)(k * 31 + version * 7 + 1);
    }

    private static void note(final ConcurrentLinkedQueue<String> examples, final String example)
    {
        if (examples.size() < 10)
        {
            examples.add(example);
        }
    }
}
