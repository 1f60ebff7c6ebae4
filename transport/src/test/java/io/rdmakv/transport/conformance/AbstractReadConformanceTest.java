package io.rdmakv.transport.conformance;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One-sided reads: exact data, refusals with the right status (a closed or unknown region: INVALID_RKEY on every
 * transport, never a connection status), what the endpoint does after a refusal (the transport's declared behaviour,
 * {@link #aRefusedReadEndsTheConnection()}), and a target that keeps serving.
 */
public abstract class AbstractReadConformanceTest extends TransportConformanceSupport
{
    private Connection connection;
    private Region region;

    @BeforeEach
    void setUpReads() throws Exception
    {
        assumeAvailable();
        assumeCapabilityRead();
        connection = connect();
        region = region(connection.server().transport, REGION_SIZE);
    }

    private void assumeCapabilityRead()
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(provider().capabilities().canRead(),
            () -> provider().name() + " has no one-sided read: test skipped");
    }

    @Test
    @Timeout(30)
    void shouldReadExactBytesOfEverySize() throws Exception
    {
        final int[] sizes = {1, 7, 64, 4096, 65_536, 1 << 20};
        final int[] offsets = {0, 1, 3, 4095, 12_345};
        for (final int size : sizes)
        {
            for (final int offset : offsets)
            {
                assertReadExact(connection.clientEndpoint(), offset, size, true);
                assertReadExact(connection.clientEndpoint(), offset, size, false);
            }
        }
    }

    @Test
    @Timeout(30)
    void shouldReadTheLastByteAndTheWholeRegionEdge() throws Exception
    {
        assertReadExact(connection.clientEndpoint(), REGION_SIZE - 1, 1, true);
        assertReadExact(connection.clientEndpoint(), REGION_SIZE - 4096, 4096, true);
    }

    @Test
    @Timeout(30)
    void shouldRefuseReadsPastTheEndBeforeTheStartAndWithOverflowingLength() throws Exception
    {
        final RemoteKey key = region.registration().remoteKey();
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final long base = region.base();
        assertRefused(TransportStatus.OUT_OF_BOUNDS, base + REGION_SIZE - 10, key, 20, dst);
        assertRefused(TransportStatus.OUT_OF_BOUNDS, base + REGION_SIZE, key, 1, dst);
        assertRefused(TransportStatus.OUT_OF_BOUNDS, base - 1, key, 8, dst);
        assertRefused(TransportStatus.OUT_OF_BOUNDS, Long.MAX_VALUE - 3, key, 16, dst);
        assertRefused(TransportStatus.OUT_OF_BOUNDS, -8L, key, 16, dst);
        assertTargetKeepsServing();
    }

    @Test
    @Timeout(30)
    void shouldRefuseAWrongTokenAndKeepServing() throws Exception
    {
        assumeCapability(TransportCapability.READ_EMULATED);
        final RemoteKey good = region.registration().remoteKey();
        final RemoteKey forged = new RemoteKey(good.transportId(), good.nativeKey(), good.baseAddress(),
            good.length(), good.token() ^ 0x5A5A_5A5A_5A5A_5A5AL);
        assertRefused(TransportStatus.INVALID_RKEY, region.base(), forged, 8,
            new UnsafeBuffer(ByteBuffer.allocateDirect(8)));
        assertTargetKeepsServing();
    }

    @Test
    @Timeout(30)
    void shouldRefuseAnUnknownRegionAndKeepServing() throws Exception
    {
        final RemoteKey good = region.registration().remoteKey();
        final RemoteKey unknown = new RemoteKey(good.transportId(), good.nativeKey() + 1000, good.baseAddress(),
            good.length(), good.token());
        assertRefused(TransportStatus.INVALID_RKEY, region.base(), unknown, 8,
            new UnsafeBuffer(ByteBuffer.allocateDirect(8)));
        assertEndpointAfterARefusal();
        assertTargetKeepsServing();
    }

    @Test
    @Timeout(30)
    void shouldRefuseAReadOfAClosedRegion() throws Exception
    {
        final Region other = region(connection.server().transport, 4096);
        final RemoteKey key = other.registration().remoteKey();
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        assertEquals(TransportStatus.OK, readStatus(connection.clientEndpoint(), other.base(), key, 64, dst));
        other.registration().close();
        assertRefused(TransportStatus.INVALID_RKEY, other.base(), key, 64, dst);
        assertEndpointAfterARefusal();
        assertTargetKeepsServing();
    }

    /**
     * True when a read the target refuses ends the connection (verbs: on RC a remote access error moves both queue
     * pairs to the error state); the contract of {@link Endpoint#read} says what the endpoint reports then.
     */
    protected boolean aRefusedReadEndsTheConnection()
    {
        return false;
    }

    /** The connection under test (for the tests of a transport's subclass). */
    protected final Connection readConnection()
    {
        return connection;
    }

    /**
     * After a read the target refused: the endpoint either stays up and serves (tcp), or (verbs) is down from the
     * refused read's completion on, refuses later operations at once with NOT_CONNECTED and told its handler once,
     * with the refusal's status, while the target's endpoint failed with PEER_FAILED.
     */
    protected final void assertEndpointAfterARefusal() throws Exception
    {
        final Endpoint ep = connection.clientEndpoint();
        if (!aRefusedReadEndsTheConnection())
        {
            assertTrue(ep.isConnected(), "a refused read leaves the connection up");
            assertEquals(0, connection.client().handler.disconnects.get());
            assertReadExact(ep, 0, 64, true);
            return;
        }
        assertFalse(ep.isConnected(), "a refused read ended the connection");
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(8));
        assertEquals(TransportStatus.NOT_CONNECTED.sentinel(),
            ep.read(region.base(), region.registration().remoteKey(), 8, dst, 0, null), "a later read");
        assertEquals(TransportStatus.NOT_CONNECTED.sentinel(), ep.send(dst, 0, 8, null), "a later send");
        assertTrue(connection.client().handler.disconnected.await(10, TimeUnit.SECONDS));
        assertEquals(TransportStatus.INVALID_RKEY, connection.client().handler.disconnectStatus.get());
        assertEquals(1, connection.client().handler.disconnects.get());
        assertTrue(connection.server().handler.disconnected.await(10, TimeUnit.SECONDS),
            "the target's endpoint failed too");
        assertEquals(TransportStatus.PEER_FAILED, connection.server().handler.disconnectStatus.get());
    }

    @Test
    @Timeout(30)
    void shouldRefuseAReadLargerThanTheLimitLocally()
    {
        final int max = connection.client().transport.capabilities().maxReadBytes();
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(16));
        final long id = connection.clientEndpoint().read(region.base(), region.registration().remoteKey(), max + 1,
            dst, 0, null);
        assertEquals(TransportStatus.MESSAGE_TOO_LARGE.sentinel(), id);
    }

    @Test
    @Timeout(30)
    void shouldNotRegisterMemoryOnTheDataPath() throws Exception
    {
        final long serverBefore = connection.server().transport.memoryDomain().registrationCount();
        final long clientBefore = connection.client().transport.memoryDomain().registrationCount();
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
        final UnsafeBuffer msg = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        for (int i = 0; i < 200; i++)
        {
            assertEquals(TransportStatus.OK,
                readStatus(connection.clientEndpoint(), region.base() + i, region.registration().remoteKey(), 4096,
                    dst));
            assertEquals(TransportStatus.OK, statusOf(connection.clientEndpoint().sendAsync(msg, 0, 256)));
            assertEquals(TransportStatus.OK, statusOf(connection.serverEndpoint().sendAsync(msg, 0, 256)));
        }
        assertEquals(serverBefore, connection.server().transport.memoryDomain().registrationCount());
        assertEquals(clientBefore, connection.client().transport.memoryDomain().registrationCount());
    }

    private void assertTargetKeepsServing() throws Exception
    {
        Endpoint ep = connection.clientEndpoint();
        if (!ep.isConnected())
        {
            // A transport whose connection dies on a refused read (verbs QP error) must still serve new ones.
            ep = connection.client().worker.connect(
                new java.net.InetSocketAddress("127.0.0.1", connection.listener().localAddress().getPort()),
                connection.client().handler).get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        assertReadExact(ep, 100, 1000, true);
    }

    protected final void assertRefused(final TransportStatus expected, final long address, final RemoteKey key,
        final int length, final UnsafeBuffer dst) throws Exception
    {
        assertEquals(expected, readStatus(connection.clientEndpoint(), address, key, length, dst),
            "read of " + length + " bytes at 0x" + Long.toHexString(address));
    }

    protected static TransportStatus readStatus(final Endpoint ep, final long address, final RemoteKey key,
        final int length, final UnsafeBuffer dst) throws Exception
    {
        return statusOf(ep.readAsync(address, key, length, dst, 0));
    }

    private void assertReadExact(final Endpoint ep, final int offset, final int size, final boolean direct)
        throws Exception
    {
        final int dstOffset = 5;
        final UnsafeBuffer dst = direct ?
            new UnsafeBuffer(ByteBuffer.allocateDirect(size + 2 * dstOffset)) :
            new UnsafeBuffer(new byte[size + 2 * dstOffset]);
        dst.setMemory(0, dst.capacity(), (byte)0x7F);
        final TransportStatus status = readStatus(ep, region.base() + offset,
            region.registration().remoteKey(), size, dst, dstOffset);
        assertEquals(TransportStatus.OK, status, "read of " + size + " bytes at offset " + offset);
        for (int i = 0; i < size; i++)
        {
            if (dst.getByte(dstOffset + i) != pattern(offset + i))
            {
                assertEquals(pattern(offset + i), dst.getByte(dstOffset + i),
                    "byte " + i + " of a " + size + "-byte read at offset " + offset);
            }
        }
        assertEquals((byte)0x7F, dst.getByte(dstOffset - 1), "read wrote before its destination");
        assertEquals((byte)0x7F, dst.getByte(dstOffset + size), "read wrote past its destination");
    }

    private static TransportStatus readStatus(final Endpoint ep, final long address, final RemoteKey key,
        final int length, final UnsafeBuffer dst, final int dstOffset) throws Exception
    {
        return statusOf(ep.readAsync(address, key, length, dst, dstOffset));
    }
}
