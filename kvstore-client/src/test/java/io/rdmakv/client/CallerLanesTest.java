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
import java.util.concurrent.CompletableFuture;
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
 * Caller lanes over tcp ({@link KvClientBuilder#callerLanes}): while another request is in flight (one the test node
 * never answers, so the count is exact), synchronous requests are written and answered on the caller's own connection
 * (counts that must move), with the same results as the shared connection; a caller alone waits on the shared
 * connection; asynchronous requests never take a lane; the lanes per node are bounded and a caller that finds none
 * free goes the shared way instead of waiting; a node admits lanes only below three quarters of its connection
 * limit; a dead node is a clear error within the timeout.
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
    void shouldAnswerSynchronousRequestsOnTheCallersLaneWhileOthersAreInFlight() throws Exception
    {
        try (LaidOutPoolNode node = new LaidOutPoolNode();
             KvClient client = node.client().getMode(GetMode.RPC).requestTimeout(Duration.ofSeconds(30))
                 .callerLanes(4).build())
        {
            node.unansweredKey = "in flight";
            final CompletableFuture<byte[]> held = client.getAsync(bytes("in flight")); // never answered: in flight
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
            final KvClientDiagnostics d = client.diagnostics();
            assertEquals(102, d.counter(ClientCounter.LANE_REQUESTS), "every sync request beside one in flight");
            assertEquals(1, d.counter(ClientCounter.LANES_OPENED), "one caller thread, one lane, kept");
            assertEquals(49, node.store.size(), "the PUTs reached the node (one deleted)");
            assertTrue(!held.isDone(), "the held request was in flight throughout");
        }
    }

    @Test
    void shouldWaitOnTheSharedConnectionWhenAlone()
    {
        try (KvServer server = start(); KvClient client = client(server).callerLanes(4).build())
        {
            for (int i = 0; i < 20; i++)
            {
                client.put(bytes("key-" + i), bytes("value-" + i));
                assertArrayEquals(bytes("value-" + i), client.get(bytes("key-" + i)));
            }
            assertEquals(0, client.diagnostics().counter(ClientCounter.LANE_REQUESTS),
                "one request at a time: yielding for the shared connection's answer beats a lane's wake-up");
            assertEquals(0, client.diagnostics().counter(ClientCounter.LANES_OPENED));
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
        try (LaidOutPoolNode node = new LaidOutPoolNode();
             KvClient client = node.client().getMode(GetMode.RPC).requestTimeout(Duration.ofSeconds(30))
                 .callerLanes(2).build())
        {
            node.unansweredKey = "in flight";
            final CompletableFuture<byte[]> held = client.getAsync(bytes("in flight")); // no caller is ever alone
            assertNull(concurrently(threads, (me, i) ->
            {
                final byte[] key = bytes("t" + me + "-" + i);
                final byte[] value = bytes("value of t" + me + " at " + i);
                client.put(key, value);
                assertArrayEquals(value, client.get(key), "own write read back");
            }, perThread));
            final KvClientDiagnostics d = client.diagnostics();
            final long total = 2L * threads * perThread;
            assertTrue(d.counter(ClientCounter.LANES_OPENED) <= 2, "at most two lanes to the node");
            // How many requests found a lane free depends on the scheduler; that the first caller found one does not.
            assertTrue(d.counter(ClientCounter.LANE_REQUESTS) > 0, "lanes were used");
            assertEquals(total + 1, d.counter(ClientCounter.RPCS), "every request sent exactly once");
            assertEquals(threads * perThread, node.store.size());
            held.cancel(true);
        }
    }

    @Test
    void shouldNeverLetLanesLockAnotherClientsFirstConnectionOut() throws Exception
    {
        // A limit of 4 attached connections: lanes only while fewer than 3 are attached (a quarter stays free).
        try (KvServer server = InProcessNode.start(dir, Map.of("limits.maxConnections", "4"));
             KvClient greedy = client(server).callerLanes(8).build())
        {
            assertNull(concurrently(6, (me, i) -> greedy.put(bytes("g" + me + "-" + i), bytes("v")), 100),
                "refused lanes cost no request");
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
        final LaidOutPoolNode node = new LaidOutPoolNode();
        try (KvClient client = node.client().getMode(GetMode.RPC).callerLanes(2).requestTimeout(Duration.ofSeconds(10))
            .connectTimeout(Duration.ofSeconds(2)).build())
        {
            node.unansweredKey = "in flight";
            client.getAsync(bytes("in flight"));
            client.put(bytes("k"), bytes("v"));
            assertEquals(1, client.diagnostics().counter(ClientCounter.LANES_OPENED));
            node.close();
            final long startNanos = System.nanoTime();
            final KvException ex = assertThrows(KvException.class, () -> client.get(bytes("k")));
            assertTrue(System.nanoTime() - startNanos < TimeUnit.SECONDS.toNanos(20), "no hang");
            assertTrue(ex.error() == KvError.CONNECTION_FAILED || ex.error() == KvError.TIMED_OUT ||
                ex.error() == KvError.TRANSPORT_FAILED, ex.toString());
        }
        finally
        {
            node.close();
        }
    }

    @Test
    void shouldEndACallBlockedOnItsLaneWhenTheClientCloses() throws Exception
    {
        try (LaidOutPoolNode node = new LaidOutPoolNode())
        {
            final KvClient client = node.client().getMode(GetMode.RPC).callerLanes(2)
                .requestTimeout(Duration.ofSeconds(120)).build();
            node.unansweredKey = "in flight";
            client.getAsync(bytes("in flight")); // in flight throughout: the sync call below takes a lane
            final CompletableFuture<Throwable> blocked = new CompletableFuture<>();
            final Thread caller = new Thread(() ->
            {
                try
                {
                    client.get(bytes("in flight")); // never answered: blocks in its lane's read
                    blocked.complete(null);
                }
                catch (final Throwable t)
                {
                    blocked.complete(t);
                }
            }, "lane-caller");
            caller.start();
            while (client.diagnostics().counter(ClientCounter.LANE_REQUESTS) == 0)
            {
                Thread.onSpinWait(); // the caller is on its lane (sending, or blocked in the read)
            }
            client.close();
            // Its deadline is two minutes away: only the close can end it, and must (the class's timeout is 60 s).
            final Throwable ended = blocked.get();
            assertTrue(ended instanceof KvException, String.valueOf(ended));
            caller.join();
        }
    }

    /** One step of a caller thread: its number and the step's. */
    private interface Step
    {
        void run(int thread, int step) throws Exception;
    }

    /** {@code threads} callers, started together, each running {@code steps} steps; the first failure, or null. */
    private static Throwable concurrently(final int threads, final Step step, final int steps)
        throws InterruptedException
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
                    for (int i = 0; i < steps; i++)
                    {
                        step.run(me, i);
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
        return failure.get();
    }
}
