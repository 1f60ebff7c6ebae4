package io.rdmakv.transport.conformance;

import io.netty.util.internal.PlatformDependent;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Peer death, failed connects, and closing that releases threads and memory. */
public abstract class AbstractLifecycleConformanceTest extends TransportConformanceSupport
{
    @Test
    @Timeout(60)
    void shouldFailOutstandingOperationsWhenThePeerDies() throws Exception
    {
        final Connection c = connect();
        final boolean canRead = provider().capabilities().canRead();
        final Region region = canRead ? region(c.server().transport, REGION_SIZE) : null;
        final int size = 256 * 1024;
        final UnsafeBuffer destination = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        final AtomicInteger ok = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final AtomicInteger unexpected = new AtomicInteger();
        final io.rdmakv.transport.CompletionHandler handler = (status, id) ->
        {
            if (status == TransportStatus.OK)
            {
                ok.incrementAndGet();
            }
            else
            {
                failed.incrementAndGet();
                if (status != TransportStatus.PEER_FAILED && status != TransportStatus.TIMED_OUT)
                {
                    unexpected.incrementAndGet();
                }
            }
        };
        int accepted = 0;
        for (int i = 0; i < 400; i++)
        {
            final long id = canRead ?
                c.clientEndpoint().read(region.base(), region.registration().remoteKey(), size, destination, 0,
                    handler) :
                c.clientEndpoint().send(message, 0, size, handler);
            if (id >= 0)
            {
                accepted++;
            }
        }
        // Kill the server side abruptly while operations are in flight.
        c.server().progress.close();
        c.server().transport.close();

        final int expected = accepted;
        awaitTrue(() -> ok.get() + failed.get() == expected, Duration.ofSeconds(30),
            "every accepted operation to complete after the peer died");
        assertEquals(0, unexpected.get(), "failures must be PEER_FAILED or TIMED_OUT");
        assertTrue(c.client().handler.disconnected.await(30, TimeUnit.SECONDS), "onDisconnected must fire");
        c.client().awaitFullCycle(); // what the failure queued has run: a second onDisconnected would show now
        assertEquals(1, c.client().handler.disconnects.get(), "onDisconnected must fire exactly once");
        assertTrue(c.client().handler.disconnectStatus.get() != TransportStatus.OK);
        final long after = c.clientEndpoint().send(message, 0, 16, null);
        assertTrue(after < 0, "a send on a dead endpoint must be refused");
        System.out.println(provider().name() + ": peer death: " + ok.get() + " completed before, " + failed.get() +
            " failed");
    }

    @Test
    @Timeout(60)
    void shouldDeliverOnDisconnectedExactlyOnceOnALocalCloseAndToThePeer() throws Exception
    {
        final Connection c = connect();
        c.clientEndpoint().close();
        assertTrue(c.client().handler.disconnected.await(30, TimeUnit.SECONDS), "onDisconnected after close()");
        assertTrue(c.server().handler.disconnected.await(30, TimeUnit.SECONDS), "the peer sees the close");
        c.client().awaitFullCycle(); // anything the close queued has run: a second onDisconnected would show now
        c.server().awaitFullCycle();
        c.clientEndpoint().close(); // a second close changes nothing
        c.client().awaitFullCycle();
        assertEquals(1, c.client().handler.disconnects.get(), "exactly once on the closing side");
        assertEquals(TransportStatus.CLOSED, c.client().handler.disconnectStatus.get());
        assertEquals(1, c.server().handler.disconnects.get(), "exactly once on the peer");
        assertTrue(c.clientEndpoint().send(new UnsafeBuffer(new byte[8]), 0, 8, null) < 0,
            "a closed endpoint refuses sends");
    }

    @Test
    @Timeout(60)
    void shouldDeliverOnDisconnectedExactlyOnceWhenTheWorkerCloses() throws Exception
    {
        final Connection c = connect();
        c.client().progress.close(); // stops the progress and closes the worker with its endpoints
        assertTrue(c.client().handler.disconnected.await(30, TimeUnit.SECONDS),
            "onDisconnected for an endpoint of a closed worker");
        assertEquals(1, c.client().handler.disconnects.get(), "exactly once");
        assertEquals(TransportStatus.CLOSED, c.client().handler.disconnectStatus.get());
        assertTrue(c.server().handler.disconnected.await(30, TimeUnit.SECONDS), "the peer sees the close");
        c.server().awaitFullCycle();
        assertEquals(1, c.server().handler.disconnects.get(), "exactly once on the peer");
        assertTrue(c.clientEndpoint().send(new UnsafeBuffer(new byte[8]), 0, 8, null) < 0,
            "an endpoint of a closed worker refuses sends");
    }

    @Test
    @Timeout(30)
    void shouldRefuseAWorkerOnAClosedTransportAndCloseOnce()
    {
        assumeAvailable();
        final Transport transport = provider().open(config());
        final Worker worker = transport.createWorker("before-close");
        transport.close();
        transport.close(); // a second close changes nothing
        final TransportException e = assertThrows(TransportException.class, () -> transport.createWorker("after"));
        assertEquals(TransportStatus.CLOSED, e.status());
        // The transport's close closed its worker: a connect fails at once (thrown, or a failed future).
        final Throwable refused = assertThrows(Throwable.class,
            () -> worker.connect(LOOPBACK, (ep, b, o, l) -> { }).join());
        assertInstanceOf(TransportException.class,
            refused instanceof java.util.concurrent.CompletionException ? refused.getCause() : refused);
    }

    @Test
    @Timeout(30)
    void shouldFailToConnectWhereNothingListens() throws Exception
    {
        final Peer client = peer("client", config());
        final int port;
        try (ServerSocket probe = new ServerSocket(0))
        {
            port = probe.getLocalPort();
        }
        // The connect fails (refused, or the connect timeout) instead of hanging: the future.get bound and the
        // test's @Timeout hold the hang; no wall-clock bound on how fast a loaded machine gets there.
        final CompletableFuture<Endpoint> future =
            client.worker.connect(new InetSocketAddress("127.0.0.1", port), client.handler);
        final ExecutionException e = assertThrows(ExecutionException.class,
            () -> future.get(config().connectTimeout().toMillis() + 20_000, TimeUnit.MILLISECONDS));
        final TransportException te = assertInstanceOf(TransportException.class, e.getCause());
        assertTrue(te.getMessage().contains(String.valueOf(port)), () -> "message should name the address: " +
            te.getMessage());
    }

    /**
     * Invariant 4 at the transport: endpoints come and go on long-lived workers (more connections over the run than
     * a verbs worker has endpoint slots, so slots are reused) and neither side registers memory for them.
     */
    @Test
    @Timeout(180)
    void shouldRegisterNoMemoryWhileEndpointsConnectAndDisconnect() throws Exception
    {
        final Peer server = peer("server", config());
        final Peer client = peer("client", config());
        final AtomicInteger accepted = new AtomicInteger();
        final AtomicInteger received = new AtomicInteger();
        final AtomicInteger gone = new AtomicInteger();
        final EndpointHandler counting = new EndpointHandler()
        {
            @Override
            public void onConnected(final Endpoint ep)
            {
                accepted.incrementAndGet();
            }

            @Override
            public void onMessage(final Endpoint ep, final org.agrona.DirectBuffer buffer, final int offset,
                final int length)
            {
                received.incrementAndGet();
            }

            @Override
            public void onDisconnected(final Endpoint ep, final TransportStatus status, final String detail)
            {
                gone.incrementAndGet();
            }
        };
        final Listener listener = closeLater(server.worker.listen(LOOPBACK, counting));
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", listener.localAddress().getPort());
        final long serverBefore = server.transport.memoryDomain().registrationCount();
        final long clientBefore = client.transport.memoryDomain().registrationCount();
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final int rounds = 8;
        final int atOnce = 3;
        for (int round = 0; round < rounds; round++)
        {
            final Endpoint[] endpoints = new Endpoint[atOnce];
            for (int i = 0; i < atOnce; i++)
            {
                endpoints[i] = client.worker.connect(address, client.handler).get(30, TimeUnit.SECONDS);
                assertEquals(TransportStatus.OK, statusOf(endpoints[i].sendAsync(message, 0, 64)));
            }
            final int expected = (round + 1) * atOnce;
            awaitTrue(() -> received.get() == expected, Duration.ofSeconds(30), "the server to receive " + expected);
            for (final Endpoint ep : endpoints)
            {
                ep.close();
            }
            // The server's side must be gone too before the next round, or it would hold its slots.
            awaitTrue(() -> gone.get() == expected, Duration.ofSeconds(30), "the server to see " + expected +
                " disconnects");
        }
        assertEquals(rounds * atOnce, accepted.get());
        assertEquals(serverBefore, server.transport.memoryDomain().registrationCount(),
            "the accepting side registered memory for its endpoints");
        assertEquals(clientBefore, client.transport.memoryDomain().registrationCount(),
            "the connecting side registered memory for its endpoints");
        System.out.println(provider().name() + ": " + rounds * atOnce + " endpoints connected and closed, " +
            "registrations server " + serverBefore + ", client " + clientBefore + " throughout");
    }

    @Test
    @Timeout(90)
    void shouldReleaseThreadsAndDirectMemoryOverOpenConnectReadCloseCycles() throws Exception
    {
        assumeAvailable();
        final UnsafeBuffer view = registrableMemory(4096);
        final UnsafeBuffer destination = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
        for (int i = 0; i < 4096; i++)
        {
            view.putByte(i, pattern(i));
        }
        for (int i = 0; i < 5; i++)
        {
            cycle(view, destination); // warm up pools and lazily started JDK/Netty threads
        }
        settle();
        final Map<String, Integer> threadsBefore = threadNames();
        final long directBefore = directMemory();
        final long nettyBefore = nettyDirectMemory();
        for (int i = 0; i < 100; i++)
        {
            cycle(view, destination);
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Map<String, Integer> threadsAfter = threadNames();
        while (total(threadsAfter) > total(threadsBefore) && System.nanoTime() < deadline)
        {
            settle();
            threadsAfter = threadNames();
        }
        assertTrue(total(threadsAfter) <= total(threadsBefore),
            "threads grew: before " + threadsBefore + " after " + threadsAfter);
        // JDK direct buffers are freed by their cleaners after a GC (verbs keeps endpoint memory alive until it is
        // unreachable, so a late completion can never touch freed memory): a leak is memory still held after GCs.
        long directGrowth = directMemory() - directBefore;
        while (directGrowth >= (8 << 20) && System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(10))
        {
            settle();
            directGrowth = directMemory() - directBefore;
        }
        assertTrue(directGrowth < (8 << 20), "JDK direct memory grew by " + directGrowth + " bytes");
        if (nettyBefore >= 0)
        {
            final long nettyGrowth = nettyDirectMemory() - nettyBefore;
            assertTrue(nettyGrowth < (16 << 20), "Netty direct memory grew by " + nettyGrowth + " bytes");
        }
    }

    /** One open/connect/read/close cycle with both workers driven by the test thread through AgentInvokers. */
    private void cycle(final UnsafeBuffer memory, final UnsafeBuffer destination) throws Exception
    {
        try (Transport transport = provider().open(config()))
        {
            final MemoryRegion region = transport.memoryDomain().register(memory.addressOffset(), memory.capacity(),
                EnumSet.of(MemoryAccess.REMOTE_READ));
            final Worker serverWorker = transport.createWorker("cycle-server");
            final Worker clientWorker = transport.createWorker("cycle-client");
            final AgentInvoker server = new AgentInvoker(Throwable::printStackTrace, null, serverWorker);
            final AgentInvoker client = new AgentInvoker(Throwable::printStackTrace, null, clientWorker);
            server.start();
            client.start();
            final EndpointHandler quiet = (ep, buffer, offset, length) -> { };
            final Listener listener = serverWorker.listen(LOOPBACK, quiet);
            final CompletableFuture<Endpoint> connect = clientWorker.connect(
                new InetSocketAddress("127.0.0.1", listener.localAddress().getPort()), quiet);
            final Endpoint ep = progressUntilDone(connect, server, client);
            final RemoteKey key = region.remoteKey();
            final CompletableFuture<Void> read = ep.readAsync(memory.addressOffset() + 7, key, 1000, destination, 0);
            progressUntilDone(read, server, client);
            assertEquals(pattern(7 + 999), destination.getByte(999));
            client.close();
            server.close();
            region.close();
        }
    }

    private static <T> T progressUntilDone(final CompletableFuture<T> future, final AgentInvoker a,
        final AgentInvoker b) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!future.isDone())
        {
            if (a.invoke() + b.invoke() == 0)
            {
                Thread.onSpinWait();
            }
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("operation did not complete within 10 s");
            }
        }
        return future.get();
    }

    private static void settle() throws InterruptedException
    {
        System.gc();
        Thread.sleep(200);
    }

    private static Map<String, Integer> threadNames()
    {
        final Map<String, Integer> names = new TreeMap<>();
        for (final Thread t : Thread.getAllStackTraces().keySet())
        {
            if (t.isAlive())
            {
                // Group numbered thread names ("rdmakv-tcp-io-7-1-2") by their stem.
                names.merge(t.getName().replaceAll("[-#]?\\d+", ""), 1, Integer::sum);
            }
        }
        return names;
    }

    private static int total(final Map<String, Integer> names)
    {
        return names.values().stream().mapToInt(Integer::intValue).sum();
    }

    private static long directMemory()
    {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                return pool.getMemoryUsed();
            }
        }
        return 0;
    }

    private static long nettyDirectMemory()
    {
        try
        {
            return PlatformDependent.usedDirectMemory();
        }
        catch (final Throwable t)
        {
            return -1; // Netty absent from this transport's class path
        }
    }

}
