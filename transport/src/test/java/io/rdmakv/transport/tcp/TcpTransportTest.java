package io.rdmakv.transport.tcp;

import io.netty.channel.epoll.Epoll;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.conformance.TransportConformanceSupport;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Behaviour specific to the TCP transport: emulation switch, frame limits, malformed peers, epoll/NIO. */
class TcpTransportTest extends TransportConformanceSupport
{
    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }

    private TransportConfig withProperty(final String name, final String value)
    {
        return config().toBuilder().property(name, value).build();
    }

    @Test
    void shouldDeclareSendRecvEmulatedReadAndCallerLanesOnly()
    {
        final TcpTransportProvider p = new TcpTransportProvider();
        assertEquals("tcp", p.name());
        assertTrue(p.isAvailable());
        assertEquals(EnumSet.of(TransportCapability.SEND_RECV, TransportCapability.READ_EMULATED,
            TransportCapability.CALLER_LANES), p.capabilities().flags());
    }

    @Test
    void shouldBeUnavailableWhenDisabledByProperty()
    {
        System.setProperty("rdmakv.transport.tcp.disabled", "true");
        try
        {
            final TcpTransportProvider p = new TcpTransportProvider();
            assertFalse(p.isAvailable());
            assertTrue(p.unavailabilityCause().contains("disabled"));
            assertThrows(TransportException.class, () -> p.open(config()));
        }
        finally
        {
            System.clearProperty("rdmakv.transport.tcp.disabled");
        }
    }

    @Test
    @Timeout(30)
    void shouldRefuseReadsWhenEmulationIsSwitchedOffOnEitherSide() throws Exception
    {
        final TransportConfig off = withProperty(TcpTransportProvider.PROP_EMULATED_READ, "false");
        final Connection c = connect(off, off);
        assertFalse(c.client().transport.capabilities().has(TransportCapability.READ_EMULATED));
        final Region region = region(c.server().transport, 4096);
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        assertEquals(TransportStatus.ACCESS_DENIED.sentinel(),
            c.clientEndpoint().read(region.base(), region.registration().remoteKey(), 64, dst, 0, null));

        // An initiator with emulation on against a target with it off: the target answers ACCESS_DENIED.
        final Connection mixed = connect(off, config());
        final Region target = region(mixed.server().transport, 4096);
        assertEquals(TransportStatus.ACCESS_DENIED,
            statusOf(mixed.clientEndpoint().readAsync(target.base(), target.registration().remoteKey(), 64, dst, 0)));
    }

    @Test
    @Timeout(30)
    void shouldRefuseRemoteReadOfARegionRegisteredWithoutRemoteRead() throws Exception
    {
        final Connection c = connect();
        final ByteBuffer memory = ByteBuffer.allocateDirect(4096);
        final MemoryRegion local = closeLater(c.server().transport.memoryDomain().register(
            new UnsafeBuffer(memory).addressOffset(), 4096, EnumSet.of(MemoryAccess.LOCAL_WRITE)));
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        assertEquals(TransportStatus.ACCESS_DENIED,
            statusOf(c.clientEndpoint().readAsync(local.address(), local.remoteKey(), 64, dst, 0)));
    }

    @Test
    void shouldGiveEveryRegionItsOwnIdAndTokenAndRefuseBadRegistrations()
    {
        final Transport t = open(config());
        final ByteBuffer memory = ByteBuffer.allocateDirect(8192);
        final long address = new UnsafeBuffer(memory).addressOffset();
        final RemoteKey a = t.memoryDomain().register(address, 4096, EnumSet.of(MemoryAccess.REMOTE_READ))
            .remoteKey();
        final RemoteKey b = t.memoryDomain().register(address + 4096, 4096, EnumSet.of(MemoryAccess.REMOTE_READ))
            .remoteKey();
        assertEquals(RemoteKey.TRANSPORT_TCP, a.transportId());
        assertNotEquals(a.nativeKey(), b.nativeKey());
        assertNotEquals(a.token(), b.token());
        assertEquals(2, t.memoryDomain().registrationCount());
        assertThrows(TransportException.class, () -> t.memoryDomain().register(0, 10, EnumSet.noneOf(MemoryAccess.class)));
        assertThrows(TransportException.class, () -> t.memoryDomain().register(address, 0, EnumSet.noneOf(MemoryAccess.class)));
        assertThrows(TransportException.class,
            () -> t.memoryDomain().register(Long.MAX_VALUE - 10, 100, EnumSet.noneOf(MemoryAccess.class)));
    }

    @Test
    @Timeout(30)
    void shouldCloseTheConnectionOnAnOversizedFrameAndKeepServingOthers() throws Exception
    {
        final TransportConfig smallServer = config().toBuilder().maxMessageBytes(64 * 1024)
            .property(TcpTransportProvider.PROP_MAX_READ_BYTES, "65536").build();
        final Connection c = connect(smallServer, config());
        final UnsafeBuffer big = new UnsafeBuffer(ByteBuffer.allocateDirect(200 * 1024));
        assertTrue(c.clientEndpoint().send(big, 0, 200 * 1024, null) >= 0);
        assertTrue(c.client().handler.disconnected.await(10, TimeUnit.SECONDS), "the server must close");
        assertEquals(TransportStatus.PEER_FAILED, c.client().handler.disconnectStatus.get());
        // The end that refused the frame reports a protocol error, not a lost peer (a node counts it as malformed).
        assertTrue(c.server().handler.disconnected.await(10, TimeUnit.SECONDS));
        assertEquals(TransportStatus.TRANSPORT_ERROR, c.server().handler.disconnectStatus.get());
        assertEquals(0, c.server().handler.messages.get());

        final Region region = region(c.server().transport, 4096);
        final Endpoint again = c.client().worker.connect(
            new InetSocketAddress("127.0.0.1", c.listener().localAddress().getPort()), c.client().handler)
            .get(10, TimeUnit.SECONDS);
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        assertEquals(TransportStatus.OK,
            statusOf(again.readAsync(region.base() + 10, region.registration().remoteKey(), 64, dst, 0)));
        assertEquals(pattern(10), dst.getByte(0));
    }

    @Test
    @Timeout(30)
    void shouldCloseMalformedRawConnectionsWithoutHurtingTheServer() throws Exception
    {
        final Connection c = connect();
        final int port = c.listener().localAddress().getPort();
        assertClosedByServer(port, new int[] {0x7FFF_FFF0});          // absurd length
        assertClosedByServer(port, new int[] {-5});                   // negative length
        assertClosedByServer(port, new int[] {1, 99 << 24});          // unknown frame type 99
        assertClosedByServer(port, new int[] {0, 0});                 // empty frame
        assertClosedByServer(port, new int[] {4, 2 << 24});            // truncated read request

        final Region region = region(c.server().transport, 4096);
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(8));
        assertEquals(TransportStatus.OK,
            statusOf(c.clientEndpoint().readAsync(region.base(), region.registration().remoteKey(), 8, dst, 0)));
    }

    private static void assertClosedByServer(final int port, final int[] words) throws Exception
    {
        try (Socket socket = new Socket("127.0.0.1", port))
        {
            socket.setSoTimeout(10_000);
            final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            for (final int w : words)
            {
                out.writeInt(w);
            }
            out.flush();
            final InputStream in = socket.getInputStream();
            assertEquals(-1, in.read(), "server should close the connection");
        }
        catch (final java.net.SocketException reset)
        {
            // a reset is also a close
        }
    }

    @Test
    @Timeout(30)
    void shouldTimeOutReadsThatATargetNeverAnswers() throws Exception
    {
        final TransportConfig quick = config().toBuilder().operationTimeout(Duration.ofMillis(300)).build();
        final Peer client = peer("client", quick);
        try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            final Endpoint ep = client.worker.connect(
                new InetSocketAddress("127.0.0.1", silent.getLocalPort()), client.handler).get(10, TimeUnit.SECONDS);
            try (Socket accepted = silent.accept())
            {
                final RemoteKey key = new RemoteKey(RemoteKey.TRANSPORT_TCP, 1, 4096, 4096, 42);
                final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
                // TIMED_OUT is the operation timeout's answer; statusOf and the test's @Timeout bound a hang.
                assertEquals(TransportStatus.TIMED_OUT, statusOf(ep.readAsync(4096, key, 64, dst, 0)));
                assertEquals(0, ep.outstanding());
                assertTrue(accepted.isConnected());
            }
        }
    }

    /** One emulated read of 5,000 bytes at {@code offset} into a fresh region: its bytes, and the server's count. */
    private void assertOneEmulatedRead(final Connection c, final int offset) throws Exception
    {
        final Region region = region(c.server().transport, 8192);
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[5000]);
        assertEquals(TransportStatus.OK, statusOf(c.clientEndpoint().readAsync(region.base() + offset,
            region.registration().remoteKey(), 5000, dst, 0)));
        for (int i = 0; i < 5000; i++)
        {
            assertEquals(pattern(offset + i), dst.getByte(i));
        }
        assertEquals(1, ((TcpTransport)c.server().transport).emulatedReadsServed());
    }

    @Test
    @Timeout(30)
    void shouldWorkOverNioWhenNativeEpollIsSwitchedOff() throws Exception
    {
        final TransportConfig nio = withProperty(TcpTransportProvider.PROP_NATIVE_EPOLL, "false");
        final Connection c = connect(nio, nio);
        assertFalse(((TcpTransport)c.client().transport).usesNativeEpoll());
        assertOneEmulatedRead(c, 3);

        final Transport defaults = open(config());
        assertEquals(Epoll.isAvailable(), ((TcpTransport)defaults).usesNativeEpoll());
    }

    @Test
    @Timeout(30)
    void shouldCarryTrafficOverIoUringWhenAskedAndTheKernelOffersIt() throws Exception
    {
        final TransportConfig uring = TcpIoUring.on(config());
        final Connection c = connect(uring, uring);
        final TcpTransport client = (TcpTransport)c.client().transport;
        assertTrue(client.usesIoUring());
        assertFalse(client.usesNativeEpoll());
        assertFalse(client.directWrites(), "direct writes need an epoll channel's descriptor");
        assertOneEmulatedRead(c, 7);
        assertFalse(((TcpTransport)open(config())).usesIoUring(), "io_uring is asked for, never the default");
    }

    @Test
    @Timeout(180)
    void shouldPushBackOnTheSenderWhileTheReceivingWorkerStallsAndLoseNothing() throws Exception
    {
        // Sends until back-pressured, then MORE_AFTER_PRESSURE more: how much the socket buffers absorb first depends on
        // the host (tcp_rmem's maximum here is 32 MiB, autotuned), so no fixed count is sure to fill them; the cap
        // (about 1 GiB) is far beyond any of them.
        final int cap = 1_000_000;
        final int moreAfterPressure = 1_000;
        final Transport serverTransport = open(config());
        final Worker serverWorker = serverTransport.createWorker("stalled");
        final AgentInvoker server = closeLater(new AgentInvoker(Throwable::printStackTrace, null, serverWorker));
        server.start();
        final RecordingHandler received = new RecordingHandler();
        received.maxMessage = 1000;
        final Listener listener = closeLater(serverWorker.listen(LOOPBACK, received));
        final Peer client = peer("client", config());
        final Endpoint ep = client.worker.connect(
            new InetSocketAddress("127.0.0.1", listener.localAddress().getPort()), client.handler)
            .get(10, TimeUnit.SECONDS);

        final AtomicInteger backPressured = new AtomicInteger();
        final AtomicInteger sent = new AtomicInteger();
        final AtomicReference<String> error = new AtomicReference<>();
        final Thread sender = new Thread(() ->
        {
            try
            {
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[1000]);
                int pressedAt = -1;
                for (int seq = 0; seq < cap && (pressedAt < 0 || seq < pressedAt + moreAfterPressure); seq++)
                {
                    final int length = encodeMessage(buffer, seq, 1000);
                    long id;
                    while ((id = ep.send(buffer, 0, length, null)) == TransportStatus.BACK_PRESSURED.sentinel())
                    {
                        if (backPressured.getAndIncrement() == 0)
                        {
                            pressedAt = seq;
                        }
                        LockSupport.parkNanos(100_000);
                    }
                    if (id < 0)
                    {
                        error.compareAndSet(null, "send " + seq + ": " + TransportStatus.fromSentinel(id));
                        return;
                    }
                    sent.incrementAndGet();
                }
            }
            catch (final Throwable t)
            {
                error.compareAndSet(null, "sender failed after " + sent.get() + " sends: " + t);
            }
        }, "stalled-sender");
        sender.start();
        // The server worker does not progress: its queue fills, then the socket buffers, then the sender's credits.
        // Also ends when the sender stops, so a failed send is reported as such, not as a wait that timed out.
        awaitTrue(() -> backPressured.get() > 0 || !sender.isAlive(), Duration.ofSeconds(60),
            "the sender to be back-pressured");
        assertNull(error.get());
        assertTrue(backPressured.get() > 0, "the sender was never back-pressured: it sent " + sent.get());
        assertEquals(0, received.messages.get());

        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while ((sender.isAlive() || received.messages.get() < sent.get()) && System.nanoTime() < deadline)
        {
            if (server.invoke() == 0)
            {
                Thread.onSpinWait();
            }
        }
        sender.join(10_000);
        assertNull(error.get());
        assertNull(received.firstError.get());
        assertTrue(sent.get() > moreAfterPressure, "sent " + sent.get());
        System.out.println("[TcpTransportTest] back-pressured after about " + (sent.get() - moreAfterPressure) +
            " sends of 1,000 B (" + backPressured.get() + " refusals)");
        assertEquals(sent.get(), received.messages.get(), "every message sent arrived, in order");
    }

    @Test
    @Timeout(30)
    void shouldCompleteOutstandingOperationsWithClosedWhenTheEndpointIsClosedLocally() throws Exception
    {
        final Connection c = connect();
        final Region region = region(c.server().transport, REGION_SIZE);
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(1 << 20));
        final AtomicInteger done = new AtomicInteger();
        final AtomicInteger wrong = new AtomicInteger();
        int accepted = 0;
        for (int i = 0; i < 100; i++)
        {
            if (c.clientEndpoint().read(region.base(), region.registration().remoteKey(), 1 << 20, dst, 0,
                (status, id) ->
                {
                    if (status != TransportStatus.OK && status != TransportStatus.CLOSED)
                    {
                        wrong.incrementAndGet();
                    }
                    done.incrementAndGet();
                }) >= 0)
            {
                accepted++;
            }
        }
        c.clientEndpoint().close();
        final int expected = accepted;
        awaitTrue(() -> done.get() == expected, Duration.ofSeconds(20), "all reads to complete");
        assertEquals(0, wrong.get());
        assertTrue(c.client().handler.disconnected.await(10, TimeUnit.SECONDS));
        assertEquals(TransportStatus.CLOSED, c.client().handler.disconnectStatus.get());
        assertTrue(c.server().handler.disconnected.await(10, TimeUnit.SECONDS));
        assertEquals(TransportStatus.PEER_FAILED, c.server().handler.disconnectStatus.get());
        assertEquals(TransportStatus.CLOSED.sentinel(), c.clientEndpoint().send(dst, 0, 8, null));
        c.client().awaitFullCycle(); // anything the close queued has run: a second onDisconnected would show now
        assertEquals(1, c.client().handler.disconnects.get());
    }

    @Test
    @Timeout(30)
    void shouldForgetTheEndpointOfAFailedConnect() throws Exception
    {
        final Peer client = peer("client", config());
        final int port;
        try (ServerSocket probe = new ServerSocket(0))
        {
            port = probe.getLocalPort();
        }
        for (int i = 0; i < 3; i++)
        {
            final CompletableFuture<Endpoint> f =
                client.worker.connect(new InetSocketAddress("127.0.0.1", port), client.handler);
            final ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
            assertEquals(TransportStatus.NOT_CONNECTED, ((TransportException)e.getCause()).status());
        }
        assertEquals(0, ((TcpWorker)client.worker).endpointCount());
    }
}
