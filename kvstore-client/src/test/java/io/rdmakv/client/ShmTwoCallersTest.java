package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two threads of one client, each with one async GET in flight over shm (completed on the calling thread), never
 * send a request to the request queue's thread: with 16 slots and at most two in use a free slot is always there, so
 * every request takes the fast path (counted by {@code requests.queued}, which must not move). Before the free slots
 * were a lock-free stack, a releasing thread stalled inside the queue's offer hid the free slots from the other
 * thread, whose requests then queued (12% of GETs in a two-thread bench), and every request after a queued one
 * queued too, to keep call order. Counted, not timed.
 */
@Timeout(120)
class ShmTwoCallersTest
{
    private static final int KEYS = 64;
    private static final int GETS_PER_THREAD = 100_000;

    @TempDir
    Path dir;

    @Test
    void shouldStartEveryRequestOnItsCallerWhileRequestSlotsAreFree() throws Exception
    {
        assumeTrue(new io.rdmakv.transport.shm.ShmTransportProvider().isAvailable(), "shm unavailable here");
        try (KvServer server = InProcessNode.start(dir, Map.of("transport", "shm"));
             KvClient client = InProcessNode.client(server).transport("shm").maxInFlight(16).build())
        {
            for (int k = 0; k < KEYS; k++)
            {
                client.put(key(k), value(k));
                assertArrayEquals(value(k), client.get(key(k))); // connected, location cached
            }
            final long queuedBefore = client.diagnostics().counters().get(ClientCounter.QUEUED_REQUESTS);
            final CyclicBarrier start = new CyclicBarrier(2);
            final List<Throwable> failures = new CopyOnWriteArrayList<>();
            final Thread[] threads = new Thread[2];
            for (int t = 0; t < threads.length; t++)
            {
                final int first = t;
                threads[t] = new Thread(() ->
                {
                    try
                    {
                        start.await();
                        for (int n = 0; n < GETS_PER_THREAD; n++)
                        {
                            final int k = (first + n * 7) % KEYS;
                            assertArrayEquals(value(k), client.getAsync(key(k)).get(30, TimeUnit.SECONDS));
                        }
                    }
                    catch (final Throwable ex)
                    {
                        failures.add(ex);
                    }
                }, "caller-" + t);
                threads[t].start();
            }
            for (final Thread thread : threads)
            {
                thread.join();
            }
            assertEquals(List.of(), failures);
            assertEquals(0, client.diagnostics().counters().get(ClientCounter.QUEUED_REQUESTS) - queuedBefore,
                "requests sent to the queue's thread while free slots were there");
        }
    }

    private static String key(final int k)
    {
        return "key-" + k;
    }

    private static byte[] value(final int k)
    {
        return ("value-" + k).getBytes(StandardCharsets.UTF_8);
    }
}
