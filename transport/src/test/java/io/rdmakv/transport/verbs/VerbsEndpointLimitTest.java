package io.rdmakv.transport.verbs;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.conformance.TransportConformanceSupport;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A verbs worker's endpoint buffers are registered once, for {@code verbs.maxEndpoints} endpoints: one more connect
 * fails with a message naming that setting, on the connecting side (its own pool is full) and on the accepting side
 * (the server's REFUSE reaches the client), and a closed endpoint's slot serves the next connection without a new
 * registration; a peer that never finishes its handshake is closed after {@code verbs.handshakeTimeoutMs} and its
 * slot serves the next connection. Skipped with the probe's cause where verbs is unavailable; runs in the SoftRoCE guest.
 */
class VerbsEndpointLimitTest extends TransportConformanceSupport
{
    @Override
    protected TransportProvider provider()
    {
        return new VerbsTransportProvider();
    }

    @Override
    protected TransportConfig config()
    {
        return VerbsTestConfig.adapt(super.config());
    }

    private TransportConfig withMaxEndpoints(final int maxEndpoints)
    {
        return config().toBuilder().property("verbs.maxEndpoints", Integer.toString(maxEndpoints)).build();
    }

    @Test
    @Timeout(120)
    void shouldRefuseAConnectBeyondTheConnectingWorkersEndpointsNamingTheSetting() throws Exception
    {
        final Peer server = peer("server", withMaxEndpoints(4));
        final Peer client = peer("client", withMaxEndpoints(1));
        final Listener listener = closeLater(server.worker.listen(LOOPBACK, server.handler));
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", listener.localAddress().getPort());
        final long clientRegistrations = client.transport.memoryDomain().registrationCount();

        final Endpoint first = client.worker.connect(address, client.handler).get(30, TimeUnit.SECONDS);
        final TransportException refused = refusal(client, address);
        assertTrue(refused.getMessage().contains("verbs.maxEndpoints") &&
            refused.getMessage().contains("client"), refused.getMessage());
        assertTrue(first.isConnected(), "the refused connect must leave the open endpoint alone");

        first.close();
        final Endpoint second = client.worker.connect(address, client.handler).get(30, TimeUnit.SECONDS);
        assertRoundTrip(second);
        assertEquals(clientRegistrations, client.transport.memoryDomain().registrationCount(),
            "connecting, refusing and reusing a slot registered memory");
    }

    @Test
    @Timeout(120)
    void shouldPassTheAcceptingWorkersRefusalToTheClientAndReuseTheEndpointSlotOnceFreed() throws Exception
    {
        final Peer server = peer("server", withMaxEndpoints(1));
        final Peer client = peer("client", withMaxEndpoints(4));
        final Listener listener = closeLater(server.worker.listen(LOOPBACK, server.handler));
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", listener.localAddress().getPort());
        final long serverRegistrations = server.transport.memoryDomain().registrationCount();

        final Endpoint first = client.worker.connect(address, client.handler).get(30, TimeUnit.SECONDS);
        assertTrue(server.handler.connected.await(30, TimeUnit.SECONDS), "server never saw the first connection");
        final TransportException refused = refusal(client, address);
        assertTrue(refused.getMessage().contains("refused by the server") &&
            refused.getMessage().contains("verbs.maxEndpoints"), refused.getMessage());
        assertTrue(first.isConnected(), "the refused connect must leave the open endpoint alone");
        assertRoundTrip(first);

        first.close();
        assertTrue(server.handler.disconnected.await(30, TimeUnit.SECONDS), "server never saw the close");
        // The server queues the slot's return on its worker thread before it calls onDisconnected, and its worker
        // handles the next HELLO after that task: the next connect gets the freed slot.
        final Endpoint second = client.worker.connect(address, client.handler).get(30, TimeUnit.SECONDS);
        assertRoundTrip(second);
        assertEquals(serverRegistrations, server.transport.memoryDomain().registrationCount(),
            "accepting, refusing and reusing a slot registered memory");
    }

    @Test
    @Timeout(120)
    void shouldClosePeersThatNeverFinishTheHandshakeAndFreeTheirEndpointSlot() throws Exception
    {
        final Peer server = peer("server", withMaxEndpoints(1).toBuilder()
            .property("verbs.handshakeTimeoutMs", "500").build());
        final Peer client = peer("client", withMaxEndpoints(4));
        final Listener listener = closeLater(server.worker.listen(LOOPBACK, server.handler));
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", listener.localAddress().getPort());

        try (Socket idle = new Socket())
        {
            idle.connect(address, 30_000);
            idle.setSoTimeout(60_000);
            assertEquals(-1, idle.getInputStream().read(), "an idle control connection must be closed by the server");
        }

        // A HELLO that takes the only slot (a real GID, so the server's QP reaches RTS), then never READY.
        final VerbsDevice device = ((VerbsWorker)server.worker).device();
        final UnsafeBuffer hello = new UnsafeBuffer(new byte[HandshakeMessage.HELLO_LENGTH]);
        HandshakeMessage.encodeHello(hello, 0, device.lid, device.activeMtu, device.port, 0x00AB_CDEF, 1, 64,
            VerbsConfig.DEFAULT_FRAGMENT_BYTES, device.gid);
        try (Socket stalled = new Socket())
        {
            stalled.connect(address, 30_000);
            stalled.setSoTimeout(60_000);
            final DataOutputStream out = new DataOutputStream(stalled.getOutputStream());
            out.writeShort(HandshakeMessage.HELLO_LENGTH);
            out.write(hello.byteArray());
            out.flush();
            final InputStream in = stalled.getInputStream();
            int received = 0;
            while (in.read() >= 0)
            {
                received++;
            }
            assertEquals(2 + HandshakeMessage.HELLO_LENGTH, received, "the server answers HELLO, then closes");
        }
        assertTrue(server.handler.disconnected.await(30, TimeUnit.SECONDS),
            "the stalled endpoint must fail once its control connection is closed");

        // Its slot was queued for return before onDisconnected ran: the next connect gets it.
        final Endpoint next = client.worker.connect(address, client.handler).get(30, TimeUnit.SECONDS);
        assertRoundTrip(next);
    }

    private static TransportException refusal(final Peer client, final InetSocketAddress address)
    {
        final ExecutionException e = assertThrows(ExecutionException.class,
            () -> client.worker.connect(address, client.handler).get(30, TimeUnit.SECONDS));
        final TransportException te = assertInstanceOf(TransportException.class, e.getCause());
        assertEquals(TransportStatus.NOT_CONNECTED, te.status(), te.getMessage());
        return te;
    }

    private static void assertRoundTrip(final Endpoint ep) throws Exception
    {
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
        assertEquals(TransportStatus.OK, statusOf(ep.sendAsync(message, 0, 128)));
        assertTrue(ep.isConnected(), "the endpoint must stay connected after a send");
    }
}
