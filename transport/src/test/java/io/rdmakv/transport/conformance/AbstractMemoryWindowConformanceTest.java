package io.rdmakv.transport.conformance;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.MemoryWindow;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Memory windows ({@link TransportCapability#MEMORY_WINDOWS}, {@link Endpoint#bindWindow}): a key over part of a
 * region for one endpoint's peer only, revoked on its own. A transport without the capability refuses the call; one
 * with it serves reads through the window, only inside it and only over that connection, until the window is
 * invalidated or closed; then the peer's read is refused ({@link TransportStatus#INVALID_RKEY}) while the target
 * keeps serving its other connections, through their windows and the region's own key.
 */
public abstract class AbstractMemoryWindowConformanceTest extends TransportConformanceSupport
{
    protected static final int WINDOW_REGION = 1 << 16;
    private static final long BIND_MILLIS = 60_000;

    /** Two clients of one server worker: their endpoints there are {@code serverOne} and {@code serverTwo}. */
    protected record TwoClients(Connection first, Endpoint serverOne, Endpoint clientTwo, Endpoint serverTwo)
    {
    }

    @Test
    @Timeout(120)
    void shouldRefuseAWindowWhereTheCapabilityOrTheRegistrationIsMissing() throws Exception
    {
        final Connection c = connect();
        final Region plain = region(c.server().transport, 4096);
        final boolean windows = c.server().transport.capabilities().has(TransportCapability.MEMORY_WINDOWS);
        final ExecutionException e = assertThrows(ExecutionException.class,
            () -> c.serverEndpoint().bindWindow(plain.registration(), plain.base(), 4096)
                .get(BIND_MILLIS, TimeUnit.MILLISECONDS));
        if (windows)
        {
            assertInstanceOf(TransportException.class, e.getCause(), "a region registered without BIND_WINDOWS");
            assertTrue(e.getCause().getMessage().contains("BIND_WINDOWS"), e.getCause().getMessage());
        }
        else
        {
            assertInstanceOf(UnsupportedOperationException.class, e.getCause());
        }
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        assertEquals(TransportStatus.OK, statusOf(c.clientEndpoint().readAsync(plain.base(),
            plain.registration().remoteKey(), 64, dst, 0)), "the refusal changed nothing");
    }

    @Test
    @Timeout(400)
    void shouldServeReadsThroughAWindowOnlyUntilItIsInvalidated() throws Exception
    {
        final TwoClients t = twoClients();
        final Region region = windowRegion(t.first().server().transport);
        final MemoryWindow one = bind(t.serverOne(), region, 4096, 8192);
        final MemoryWindow two = closeLater(bind(t.serverTwo(), region, 0, WINDOW_REGION));
        final RemoteKey key = one.remoteKey();
        assertNotEquals(region.registration().remoteKey().nativeKey(), key.nativeKey(), "a key of its own");
        assertEquals(region.base() + 4096, key.baseAddress());
        assertEquals(8192, key.length());

        assertReads(t.first().clientEndpoint(), region, key, 4096 + 100, 1000);
        assertReads(t.clientTwo(), region, two.remoteKey(), 0, 4096);
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
        assertEquals(TransportStatus.OUT_OF_BOUNDS, statusOf(t.first().clientEndpoint().readAsync(
            region.base(), key, 64, dst, 0)), "outside the window, refused before anything is sent");
        assertTrue(t.first().clientEndpoint().isConnected());

        one.invalidate().get(BIND_MILLIS, TimeUnit.MILLISECONDS);
        assertEquals(TransportStatus.INVALID_RKEY, statusOf(t.first().clientEndpoint().readAsync(
            region.base() + 4096, key, 64, dst, 0)), "a read through the invalidated window");
        one.close();
        awaitTrue(() -> !t.serverOne().isConnected(), Duration.ofSeconds(30), "the target's endpoint of the refusal");

        assertTrue(t.serverTwo().isConnected(), "the other connection is untouched");
        assertReads(t.clientTwo(), region, two.remoteKey(), 5000, 4096);
        assertReads(t.clientTwo(), region, region.registration().remoteKey(), 100, 64);
    }

    @Test
    @Timeout(400)
    void shouldRevokeAWindowByClosingIt() throws Exception
    {
        final TwoClients t = twoClients();
        final Region region = windowRegion(t.first().server().transport);
        final MemoryWindow one = bind(t.serverOne(), region, 0, WINDOW_REGION);
        final MemoryWindow two = closeLater(bind(t.serverTwo(), region, 0, WINDOW_REGION));
        assertReads(t.first().clientEndpoint(), region, one.remoteKey(), 0, 64);

        one.close();
        one.close();
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        assertEquals(TransportStatus.INVALID_RKEY, statusOf(t.first().clientEndpoint().readAsync(
            region.base(), one.remoteKey(), 64, dst, 0)), "a read through the closed window");
        assertReads(t.clientTwo(), region, two.remoteKey(), 64, 64);
    }

    @Test
    @Timeout(400)
    void shouldNotHonourAWindowOverAnotherConnection() throws Exception
    {
        final TwoClients t = twoClients();
        final Region region = windowRegion(t.first().server().transport);
        final MemoryWindow one = closeLater(bind(t.serverOne(), region, 0, WINDOW_REGION));
        final MemoryWindow two = closeLater(bind(t.serverTwo(), region, 0, WINDOW_REGION));
        assertReads(t.first().clientEndpoint(), region, one.remoteKey(), 0, 64);

        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        assertEquals(TransportStatus.INVALID_RKEY, statusOf(t.clientTwo().readAsync(
            region.base(), one.remoteKey(), 64, dst, 0)), "the first peer's window used by the second");
        assertTrue(t.first().clientEndpoint().isConnected(), "the window's own connection is untouched");
        assertReads(t.first().clientEndpoint(), region, one.remoteKey(), 128, 64);
        assertFalse(two.remoteKey().nativeKey() == one.remoteKey().nativeKey(), "one key per window");
    }

    /**
     * An endpoint that ends with a window still bound on it (its owner closes the window only after the end, as a
     * node does from onDisconnected) frees it at its teardown: the worker goes on taking connections and binding
     * windows, the window's late close is a no-op, and the region deregisters (closed after the test) with no window
     * left on it.
     */
    @Test
    @Timeout(400)
    void shouldFreeTheWindowsOfAnEndedEndpointAndGoOnServing() throws Exception
    {
        final TwoClients t = twoClients();
        final Region region = windowRegion(t.first().server().transport);
        final MemoryWindow one = bind(t.serverOne(), region, 0, WINDOW_REGION);
        final MemoryWindow two = closeLater(bind(t.serverTwo(), region, 0, WINDOW_REGION));
        assertReads(t.first().clientEndpoint(), region, one.remoteKey(), 0, 64);

        t.serverOne().close(); // the window is still bound: the teardown frees it
        awaitTrue(() -> !t.first().clientEndpoint().isConnected(), Duration.ofSeconds(60),
            "the first client saw its connection end");
        one.close(); // late, as a node's onDisconnected: a no-op
        assertReads(t.clientTwo(), region, two.remoteKey(), 64, 64);

        final Endpoint before = t.first().server().handler.endpoint.get();
        final Peer third = peer("client-three", config());
        final Endpoint clientThree = third.worker.connect(
            new InetSocketAddress("127.0.0.1", t.first().listener().localAddress().getPort()), third.handler)
            .get(config().connectTimeout().plusSeconds(30).toMillis(), TimeUnit.MILLISECONDS);
        awaitTrue(() -> t.first().server().handler.endpoint.get() != before, Duration.ofSeconds(60),
            "the server accepted a new client after the ended one");
        final MemoryWindow three = closeLater(bind(t.first().server().handler.endpoint.get(), region, 0,
            WINDOW_REGION));
        assertReads(clientThree, region, three.remoteKey(), 256, 64);
    }

    /** A region of the server's registered for reads and windows, filled with {@link #pattern(int)}. */
    protected final Region windowRegion(final io.rdmakv.transport.Transport transport)
    {
        final UnsafeBuffer view = registrableMemory(WINDOW_REGION);
        for (int i = 0; i < WINDOW_REGION; i++)
        {
            view.putByte(i, pattern(i));
        }
        final MemoryRegion mr = closeLater(transport.memoryDomain().register(view.addressOffset(), WINDOW_REGION,
            EnumSet.of(MemoryAccess.REMOTE_READ, MemoryAccess.LOCAL_WRITE, MemoryAccess.BIND_WINDOWS)));
        return new Region(view.byteBuffer(), view, mr);
    }

    /** Connect, skip unless the transport has windows, then connect a second client of the same server worker. */
    protected final TwoClients twoClients() throws Exception
    {
        final Connection c = connect();
        assumeTrue(c.server().transport.capabilities().has(TransportCapability.MEMORY_WINDOWS),
            () -> provider().name() + " has no memory windows here: test skipped");
        final Endpoint serverOne = c.serverEndpoint();
        final Peer second = peer("client-two", config());
        final Endpoint clientTwo = second.worker.connect(
            new InetSocketAddress("127.0.0.1", c.listener().localAddress().getPort()), second.handler)
            .get(config().connectTimeout().plusSeconds(30).toMillis(), TimeUnit.MILLISECONDS);
        awaitTrue(() -> c.server().handler.endpoint.get() != serverOne, Duration.ofSeconds(60),
            "the server accepted the second client");
        return new TwoClients(c, serverOne, clientTwo, c.server().handler.endpoint.get());
    }

    protected static MemoryWindow bind(final Endpoint endpoint, final Region region, final int offset,
        final int length) throws Exception
    {
        return endpoint.bindWindow(region.registration(), region.base() + offset, length)
            .get(BIND_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Read {@code length} bytes at {@code offset} of the region with {@code key} and check every byte. */
    protected static void assertReads(final Endpoint ep, final Region region, final RemoteKey key, final int offset,
        final int length) throws Exception
    {
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
        assertEquals(TransportStatus.OK, statusOf(ep.readAsync(region.base() + offset, key, length, dst, 0)),
            "read of " + length + " bytes at offset " + offset + " with " + key);
        for (int i = 0; i < length; i++)
        {
            if (dst.getByte(i) != pattern(offset + i))
            {
                assertEquals(pattern(offset + i), dst.getByte(i), "byte " + i + " of the read at offset " + offset);
            }
        }
    }
}
