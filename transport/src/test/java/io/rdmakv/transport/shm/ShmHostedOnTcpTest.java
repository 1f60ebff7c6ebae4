package io.rdmakv.transport.shm;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.conformance.TransportConformanceSupport;
import io.rdmakv.transport.WorkerProgress;
import io.rdmakv.transport.event.EventFdWakeup;
import io.rdmakv.transport.tcp.TcpTransport;
import io.rdmakv.transport.tcp.TcpTransportProvider;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A shm worker hosted by a tcp worker's event loop ({@link WorkerProgress#host}), as a default node serves shm: its
 * callbacks run on the loop's thread, the loop's idle folds in the shm wake-up (arm, poll once more, block; a peer
 * that finds the mark writes the eventfd the loop watches), and closing the hosted progress closes the shm worker.
 * The loop's duty timer is set to a minute, so a message whose wake-up got lost would stall its round trip past its
 * bound rather than be found by a timer cycle. Counted, never timed.
 */
class ShmHostedOnTcpTest
{
    private static final int ROUNDS = 200;
    private static final long ROUND_BOUND_NANOS = TimeUnit.SECONDS.toNanos(20);

    private Transport tcp;
    private Transport serverShm;
    private Transport clientShm;
    private WorkerProgress loop;
    private WorkerProgress hosted;
    private Worker serverWorker;
    private AgentInvoker client;
    private Listener listener;
    private final Set<Thread> callbackThreads = ConcurrentHashMap.newKeySet();
    private final CopyOnWriteArrayList<Boolean> onProgressThread = new CopyOnWriteArrayList<>();
    private final AtomicInteger echoed = new AtomicInteger();
    private final CompletableFuture<TransportStatus> clientDown = new CompletableFuture<>();

    @BeforeEach
    void start()
    {
        final ShmTransportProvider shm = new ShmTransportProvider();
        assumeTrue(shm.isAvailable(), () -> "shm unavailable: " + shm.unavailabilityCause());
        tcp = new TcpTransportProvider().open(TransportConfig.defaults());
        assumeTrue(((TcpTransport)tcp).usesNativeEpoll(), "hosting needs the native epoll event loop");
        loop = tcp.createWorker("host").driveProgress(new TransportConformanceSupport.IdleDuty(), Duration.ofMinutes(1),
            Throwable::printStackTrace);
        serverShm = shm.open(TransportConfig.builder().property(ShmTransportProvider.PROP_SPIN_MICROS, "0").build());
        clientShm = shm.open(TransportConfig.defaults());
        serverWorker = serverShm.createWorker("hosted");
        hosted = loop.host(serverWorker, Throwable::printStackTrace);
    }

    @AfterEach
    void stop()
    {
        if (client != null)
        {
            client.close();
        }
        if (hosted != null)
        {
            hosted.close();
        }
        if (loop != null)
        {
            loop.close();
        }
        for (final Transport t : new Transport[] {clientShm, serverShm, tcp})
        {
            if (t != null)
            {
                t.close();
            }
        }
    }

    @Test
    @Timeout(120)
    void shouldRunTheHostedWorkersCallbacksOnTheLoopAndWakeItThroughTheEventFdItWatches() throws Exception
    {
        assertNotNull(hosted, "a tcp loop on native epoll hosts an armable shm worker");
        final Endpoint endpoint = connect();
        final ShmRings rings = ((ShmEndpoint)endpoint).rings();
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final long wakeupsBefore = rings.peerWakeups();
        final long consumedBefore = ((EventFdWakeup)serverWorker.wakeup()).signalWakeups();
        for (int round = 1; round <= ROUNDS; round++)
        {
            // The loop has answered the last round and armed before it blocked: this send must wake it.
            awaitTrue(rings::isPeerParked, "the hosting loop to arm its shm rings before it blocks");
            message.putInt(0, round);
            assertTrue(endpoint.send(message, 0, 64, null) >= 0);
            final int expected = round;
            awaitTrue(() -> echoed.get() == expected, "round " + round + "'s echo");
        }
        // Each send writes the eventfd at most once, and only when it finds the loop parked (the compare-and-set of
        // the parked mark). The loop may wake for something else between the await above and the send (a Netty task,
        // a timer); that send then finds it awake and writes nothing, so the count is at most ROUNDS, not exactly.
        // No wake-up was lost: every round was echoed, and a loop blocked in epoll_wait wakes only by a ready fd.
        final long wakeups = rings.peerWakeups() - wakeupsBefore;
        assertTrue(wakeups >= 1 && wakeups <= ROUNDS,
            "sends that found the hosting loop parked wrote its eventfd once each: " + wakeups + " of " + ROUNDS);
        assertTrue(((EventFdWakeup)serverWorker.wakeup()).signalWakeups() > consumedBefore,
            "the loop consumed the eventfd it watches");
        assertEquals(1, callbackThreads.size(), "one thread ran every callback: " + callbackThreads);
        assertTrue(callbackThreads.iterator().next().getName().startsWith("rdmakv-tcp-io"),
            "the tcp event loop's: " + callbackThreads);
        assertTrue(onProgressThread.stream().allMatch(Boolean::booleanValue),
            "the loop is the hosted worker's progress thread");
    }

    @Test
    @Timeout(60)
    void shouldCloseTheHostedWorkerWhenItsProgressCloses() throws Exception
    {
        assertNotNull(hosted);
        final Endpoint endpoint = connect();
        assertTrue(endpoint.isConnected());
        final int port = listener.localAddress().getPort();
        hosted.close();
        hosted = null;
        awaitTrue(clientDown::isDone, "the client to see the hosted worker's connection go down");
        // the name of the closed listener is free again: the hosted worker closed its sockets
        final Worker again = serverShm.createWorker("again");
        try
        {
            assertNotNull(again.listen(new InetSocketAddress("127.0.0.1", port), (ep, b, o, l) -> { }));
        }
        finally
        {
            again.close();
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseToHostWhatItCannotWatch()
    {
        final Worker tcpWorker = tcp.createWorker("not-armable");
        try
        {
            assertNull(loop.host(tcpWorker, Throwable::printStackTrace), "an event-driven worker is not hostable");
        }
        finally
        {
            tcpWorker.close();
        }
    }

    private Endpoint connect() throws Exception
    {
        final EndpointHandler echo = new EndpointHandler()
        {
            @Override
            public void onMessage(final Endpoint ep, final DirectBuffer buffer, final int offset, final int length)
            {
                callbackThreads.add(Thread.currentThread());
                onProgressThread.add(hosted.isProgressThread() && loop.isProgressThread());
                final UnsafeBuffer answer = new UnsafeBuffer(new byte[length]);
                answer.putBytes(0, buffer, offset, length);
                ep.send(answer, 0, length, null);
            }
        };
        listener = serverWorker.listen(new InetSocketAddress("127.0.0.1", 0), echo);
        final Worker clientWorker = clientShm.createWorker("client");
        client = new AgentInvoker(Throwable::printStackTrace, null, clientWorker);
        client.start();
        final EndpointHandler counting = new EndpointHandler()
        {
            @Override
            public void onMessage(final Endpoint ep, final DirectBuffer buffer, final int offset, final int length)
            {
                echoed.incrementAndGet();
            }

            @Override
            public void onDisconnected(final Endpoint ep, final TransportStatus status, final String detail)
            {
                clientDown.complete(status);
            }
        };
        final CompletableFuture<Endpoint> connect = clientWorker.connect(
            new InetSocketAddress("127.0.0.1", listener.localAddress().getPort()), counting);
        awaitTrue(connect::isDone, "the connection");
        return connect.get();
    }

    /** Run the client's worker until {@code condition} holds, failing after the round's bound. */
    private void awaitTrue(final java.util.function.BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + ROUND_BOUND_NANOS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("waited " + TimeUnit.NANOSECONDS.toSeconds(ROUND_BOUND_NANOS) + " s for " + what);
            }
            if (client != null)
            {
                client.invoke();
            }
            Thread.yield();
        }
    }

}
