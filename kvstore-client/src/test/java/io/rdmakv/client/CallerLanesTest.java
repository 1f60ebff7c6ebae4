package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.counters.ServerCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Caller lanes over tcp ({@link KvClientBuilder#callerLanes}), against a real node in-process: synchronous requests
 * are written and answered on the caller's own connection (counts that must move), with the same results as the
 * shared connection; asynchronous ones never take a lane; the number of lanes per node is bounded and a caller that
 * finds none free goes the shared way instead of waiting; a dead node is a clear error within the timeout.
 */
@Timeout(60)
class CallerLanesTest
{
    @TempDir
    Path dir;

    private KvServer start()
    {
        return InProcessNode.start(dir, Map.of());
    }

    private static KvClientBuilder client(final KvServer server)
    {
        return KvClient.builder().server("127.0.0.1:" + server.controlAddress().getPort()).transport("tcp");
    }

    @Test
    void shouldAnswerSynchronousRequestsOnTheCallersLane()
    {
        try (KvServer server = start(); KvClient client = client(server).callerLanes(4).build())
        {
            for (int i = 0; i < 50; i++)
            {
                client.put(bytes("key-" + i), bytes("value-" + i));
            }
            for (int i = 0; i < 50; i++)
            {
                assertArrayEquals(bytes("value-" + i), client.get(bytes("key-" + i)));
            }
            assertNull(client.get(bytes("absent")));
            assertTrue(client.delete(bytes("key-0")));
            assertNull(client.get(bytes("key-0")));
            final KvClientDiagnostics d = client.diagnostics();
            assertEquals(103, d.counter(ClientCounter.LANE_REQUESTS), "every sync request on the lane");
            assertEquals(1, d.counter(ClientCounter.LANES_OPENED), "one caller thread, one lane, kept");
            assertEquals(50, server.counters().get(ServerCounter.PUTS));
        }
    }

    @Test
    void shouldKeepAsynchronousRequestsOnTheSharedConnection() throws Exception
    {
        try (KvServer server = start(); KvClient client = client(server).callerLanes(4).build())
        {
            client.putAsync(bytes("k"), bytes("v")).get(20, TimeUnit.SECONDS);
            assertArrayEquals(bytes("v"), client.getAsync(bytes("k")).get(20, TimeUnit.SECONDS));
            assertEquals(0, client.diagnostics().counter(ClientCounter.LANE_REQUESTS));
            assertEquals(0, client.diagnostics().counter(ClientCounter.LANES_OPENED));
        }
    }

    @Test
    void shouldOpenNoLaneWhenOff()
    {
        try (KvServer server = start(); KvClient client = client(server).callerLanes(0).build())
        {
            client.put(bytes("k"), bytes("v"));
            assertArrayEquals(bytes("v"), client.get(bytes("k")));
            assertEquals(0, client.diagnostics().counter(ClientCounter.LANE_REQUESTS));
            assertEquals(0, client.diagnostics().counter(ClientCounter.LANES_OPENED));
        }
    }

    @Test
    void shouldBoundTheLanesAndSendTheRestTheSharedWayWithoutWaiting() throws Exception
    {
        final int threads = 6;
        final int perThread = 300;
        try (KvServer server = start(); KvClient client = client(server).callerLanes(2).build())
        {
            final CyclicBarrier start = new CyclicBarrier(threads);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final int me = t;
                final Thread w = new Thread(() ->
                {
                    try
                    {
                        start.await();
                        for (int i = 0; i < perThread; i++)
                        {
                            final byte[] key = bytes("t" + me + "-" + i);
                            final byte[] value = bytes("value of t" + me + " at " + i);
                            client.put(key, value);
                            assertArrayEquals(value, client.get(key), "own write read back");
                        }
                    }
                    catch (final Throwable ex)
                    {
                        failure.compareAndSet(null, ex);
                    }
                }, "caller-" + t);
                workers.add(w);
                w.start();
            }
            for (final Thread w : workers)
            {
                w.join();
            }
            assertNull(failure.get());
            final KvClientDiagnostics d = client.diagnostics();
            final long total = 2L * threads * perThread;
            assertTrue(d.counter(ClientCounter.LANES_OPENED) <= 2, "at most two lanes to the node");
            assertTrue(d.counter(ClientCounter.LANE_REQUESTS) > 0, "lanes were used");
            assertEquals(total, d.counter(ClientCounter.RPCS), "every request sent exactly once");
            assertEquals(threads * perThread, server.counters().get(ServerCounter.PUTS));
        }
    }

    @Test
    void shouldNeverLetLanesLockAnotherClientsFirstConnectionOut() throws Exception
    {
        // A limit of 4 attached connections: lanes only while fewer than 3 are attached (a quarter stays free).
        try (KvServer server = InProcessNode.start(dir, Map.of("limits.maxConnections", "4"));
             KvClient greedy = client(server).callerLanes(8).build())
        {
            final int threads = 6;
            final CyclicBarrier start = new CyclicBarrier(threads);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final int me = t;
                final Thread w = new Thread(() ->
                {
                    try
                    {
                        start.await();
                        for (int i = 0; i < 100; i++)
                        {
                            greedy.put(bytes("g" + me + "-" + i), bytes("v"));
                        }
                    }
                    catch (final Throwable ex)
                    {
                        failure.compareAndSet(null, ex);
                    }
                });
                workers.add(w);
                w.start();
            }
            for (final Thread w : workers)
            {
                w.join();
            }
            assertNull(failure.get(), "refused lanes cost no request");
            assertTrue(greedy.diagnostics().counter(ClientCounter.LANES_OPENED) <= 2,
                "its first connection and at most two lanes: " + greedy.diagnostics().counter(ClientCounter.LANES_OPENED));
            try (KvClient other = client(server).callerLanes(0).build())
            {
                other.put(bytes("other"), bytes("still gets in"));
                assertArrayEquals(bytes("still gets in"), other.get(bytes("other")));
            }
        }
    }

    @Test
    void shouldFailClearlyWithinTheTimeoutWhenTheNodeDies() throws Exception
    {
        final KvServer server = start();
        try (KvClient client = client(server).callerLanes(2).requestTimeout(Duration.ofSeconds(2))
            .connectTimeout(Duration.ofSeconds(2)).build())
        {
            client.put(bytes("k"), bytes("v"));
            assertEquals(1, client.diagnostics().counter(ClientCounter.LANES_OPENED));
            server.close();
            final long startNanos = System.nanoTime();
            final KvException ex = assertThrows(KvException.class, () -> client.get(bytes("k")));
            assertTrue(System.nanoTime() - startNanos < TimeUnit.SECONDS.toNanos(20), "no hang");
            assertTrue(ex.error() == KvError.CONNECTION_FAILED || ex.error() == KvError.TIMED_OUT, ex.toString());
        }
        finally
        {
            server.close();
        }
    }
}
