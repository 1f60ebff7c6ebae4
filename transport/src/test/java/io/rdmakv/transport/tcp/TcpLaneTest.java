package io.rdmakv.transport.tcp;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Lane;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.conformance.TransportConformanceSupport;
import io.rdmakv.transport.progress.Progress;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TCP transport's caller lanes ({@link Lane}): a lane reaches an ordinary listener of the transport, which answers
 * on it as on any endpoint; messages of every size up to the limit go both ways intact and in order; a receive with
 * nothing to read returns false at its timeout; the peer's close, a malformed frame and an oversized send fail with
 * the right status and close the lane; a send to a peer that stopped reading gives up at its timeout.
 */
class TcpLaneTest extends TransportConformanceSupport
{
    private static final Duration CONNECT = Duration.ofSeconds(10);
    private static final long RECEIVE_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final long SEND_NANOS = TimeUnit.SECONDS.toNanos(20);

    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }

    @Test
    @Timeout(60)
    void shouldCarryMessagesOfEverySizeBothWaysInOrder() throws Exception
    {
        final Echo echo = echo(1);
        try (Lane lane = echo.client.openLane(echo.address, CONNECT))
        {
            assertTrue(echo.client.transport().capabilities().has(TransportCapability.CALLER_LANES));
            final int max = echo.client.transport().capabilities().maxSendBytes();
            // Around the lane's first buffer size, and the transport's largest message: the buffers grow.
            for (final int size : new int[]{0, 1, 100, TcpLane.INITIAL_BUFFER_BYTES - 5, TcpLane.INITIAL_BUFFER_BYTES,
                TcpLane.INITIAL_BUFFER_BYTES + 1, 200_000, max})
            {
                final byte[] sent = payload(size);
                lane.send(new UnsafeBuffer(sent), 0, size, SEND_NANOS);
                final List<byte[]> got = new ArrayList<>();
                assertTrue(lane.receive((b, o, l) -> got.add(copy(b, o, l)), RECEIVE_NANOS), "answer to " + size);
                assertArrayEquals(sent, got.get(0), "message of " + size + " bytes");
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldHandOverFramesThatArriveInOneReadOneByOne() throws Exception
    {
        final Echo echo = echo(3); // three answers per message: they usually land in one read
        try (Lane lane = echo.client.openLane(echo.address, CONNECT))
        {
            final byte[] sent = payload(300);
            lane.send(new UnsafeBuffer(sent), 0, sent.length, SEND_NANOS);
            for (int i = 0; i < 3; i++)
            {
                final List<byte[]> got = new ArrayList<>();
                assertTrue(lane.receive((b, o, l) -> got.add(copy(b, o, l)), RECEIVE_NANOS));
                assertEquals(1, got.size(), "one message per receive");
                assertArrayEquals(sent, got.get(0));
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldReturnFalseAndCloseAtTheTimeoutWhenNothingCame() throws Exception
    {
        final Echo echo = echo(1);
        try (Lane lane = echo.client.openLane(echo.address, CONNECT))
        {
            final long start = System.nanoTime();
            assertFalse(lane.receive((b, o, l) -> { }, TimeUnit.MILLISECONDS.toNanos(30)));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(30), "waited its timeout");
            // The watchdog closed it under the blocked read: a later answer must not be taken for the next request's.
            assertTrue(lane.isClosed());
            final TransportException ex = assertThrows(TransportException.class,
                () -> lane.receive((b, o, l) -> { }, TimeUnit.MILLISECONDS.toNanos(30)));
            assertEquals(TransportStatus.CLOSED, ex.status());
            assertTrue(ex.getMessage().contains("passed its deadline"), ex.getMessage());
        }
    }

    @Test
    @Timeout(60)
    void shouldFailAndCloseWhenThePeerCloses() throws Exception
    {
        final Echo echo = echo(1);
        final Lane lane = closeLater(echo.client.openLane(echo.address, CONNECT));
        final byte[] sent = payload(10);
        lane.send(new UnsafeBuffer(sent), 0, sent.length, SEND_NANOS);
        assertTrue(lane.receive((b, o, l) -> { }, RECEIVE_NANOS));
        echo.accepted.get().close(); // the server side closes the lane's connection
        final TransportException ex = assertThrows(TransportException.class,
            () -> lane.receive((b, o, l) -> { }, RECEIVE_NANOS));
        assertEquals(TransportStatus.PEER_FAILED, ex.status());
        assertTrue(lane.isClosed());
        assertEquals(TransportStatus.CLOSED, assertThrows(TransportException.class,
            () -> lane.send(new UnsafeBuffer(sent), 0, sent.length, SEND_NANOS)).status());
    }

    @Test
    @Timeout(60)
    void shouldRefuseAMessageOverTheLimitAndStayUsable() throws Exception
    {
        final Echo echo = echo(1);
        try (Lane lane = echo.client.openLane(echo.address, CONNECT))
        {
            final int max = echo.client.transport().capabilities().maxSendBytes();
            final TransportException ex = assertThrows(TransportException.class,
                () -> lane.send(new UnsafeBuffer(new byte[max + 1]), 0, max + 1, SEND_NANOS));
            assertEquals(TransportStatus.MESSAGE_TOO_LARGE, ex.status());
            assertFalse(lane.isClosed(), "nothing was written: the lane stays usable");
            lane.send(new UnsafeBuffer(payload(5)), 0, 5, SEND_NANOS);
            assertTrue(lane.receive((b, o, l) -> { }, RECEIVE_NANOS));
        }
    }

    @Test
    @Timeout(60)
    void shouldGiveUpASendAtItsTimeoutWhenThePeerStopsReading() throws Exception
    {
        final Worker client = open(config()).createWorker("lane-client");
        closeLater(client);
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            final Lane lane = closeLater(client.openLane(new InetSocketAddress("127.0.0.1", server.getLocalPort()),
                CONNECT));
            try (Socket peer = server.accept()) // accepted, never read: the socket buffers fill
            {
                final int max = client.transport().capabilities().maxSendBytes();
                final UnsafeBuffer big = new UnsafeBuffer(new byte[max]);
                TransportException refused = null;
                for (int i = 0; i < 1_000 && refused == null; i++)
                {
                    try
                    {
                        lane.send(big, 0, max, TimeUnit.MILLISECONDS.toNanos(200));
                    }
                    catch (final TransportException ex)
                    {
                        refused = ex;
                    }
                }
                assertTrue(refused != null, "a send gave up once the buffers were full");
                assertEquals(TransportStatus.TIMED_OUT, refused.status(), refused.getMessage());
                assertTrue(lane.isClosed(), "part of a message may be written: the lane is closed");
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldFailOnAFrameThatIsNotAMessageOrTooLong() throws Exception
    {
        final Worker client = open(config()).createWorker("lane-client");
        closeLater(client);
        for (final int[] frame : new int[][]{{2, TcpFrames.TYPE_READ_RESPONSE}, {Integer.MAX_VALUE, TcpFrames.TYPE_MESSAGE},
            {0, TcpFrames.TYPE_MESSAGE}})
        {
            try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
            {
                final Lane lane = closeLater(client.openLane(
                    new InetSocketAddress("127.0.0.1", server.getLocalPort()), CONNECT));
                try (Socket peer = server.accept())
                {
                    final DataOutputStream out = new DataOutputStream(peer.getOutputStream());
                    out.writeInt(frame[0]);
                    out.writeByte(frame[1]);
                    out.write(new byte[]{0, 0});
                    out.flush();
                    final TransportException ex = assertThrows(TransportException.class,
                        () -> lane.receive((b, o, l) -> { }, RECEIVE_NANOS));
                    assertEquals(TransportStatus.PEER_FAILED, ex.status());
                    assertTrue(lane.isClosed(), "frame length " + frame[0] + ", type " + frame[1]);
                }
            }
        }
    }

    private Echo echo(final int copies) throws Exception
    {
        final Worker server = open(config()).createWorker("lane-server");
        closeLater(Progress.start(server, new IdleDuty(), "lane-server", Throwable::printStackTrace));
        final AtomicReference<Endpoint> accepted = new AtomicReference<>();
        final CountDownLatch connected = new CountDownLatch(1);
        final Listener listener = closeLater(server.listen(LOOPBACK, new EndpointHandler()
        {
            @Override
            public void onConnected(final Endpoint endpoint)
            {
                accepted.set(endpoint);
                connected.countDown();
            }

            @Override
            public void onMessage(final Endpoint endpoint, final DirectBuffer buffer, final int offset,
                final int length)
            {
                for (int i = 0; i < copies; i++)
                {
                    long id;
                    while ((id = endpoint.send(buffer, offset, length, null)) < 0)
                    {
                        assertEquals(TransportStatus.BACK_PRESSURED.sentinel(), id);
                        Thread.yield();
                    }
                }
            }

            @Override
            public void onDisconnected(final Endpoint endpoint, final TransportStatus status, final String detail)
            {
            }
        }));
        final Worker client = open(config()).createWorker("lane-client");
        closeLater(client);
        return new Echo(client, new InetSocketAddress("127.0.0.1", listener.localAddress().getPort()), accepted);
    }

    private static byte[] payload(final int size)
    {
        final byte[] b = new byte[size];
        for (int i = 0; i < size; i++)
        {
            b[i] = (byte)(i * 31 + size);
        }
        return b;
    }

    private static byte[] copy(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] b = new byte[length];
        buffer.getBytes(offset, b);
        return b;
    }

    private record Echo(Worker client, InetSocketAddress address, AtomicReference<Endpoint> accepted)
    {
    }

}
