package io.rdmakv.transport.shm;

import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code readImmediate} on shm: once the peer's region is mapped here a read is complete on return, with the checks
 * of a posted read (token, bounds, registration) and nothing left in flight; before that it declines (null) and the
 * caller posts. No worker is driven between the calls and their checks, so what they return is all they did.
 */
@Timeout(30)
class ShmImmediateReadTest
{
    private final ShmPair pair = new ShmPair();
    private final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(16));

    @BeforeEach
    void connect() throws Exception
    {
        final ShmTransportProvider provider = new ShmTransportProvider();
        assumeTrue(provider.isAvailable(), () -> "shm unavailable: " + provider.unavailabilityCause());
        assertTrue(provider.capabilities().has(TransportCapability.READ_IMMEDIATE));
        pair.open();
    }

    @AfterEach
    void close()
    {
        pair.close();
    }

    @Test
    void shouldDeclineUntilTheRegionIsMappedThenCompleteOnReturn() throws Exception
    {
        final RemoteKey key = pair.region.remoteKey();
        assertNull(pair.endpoint.readImmediate(key.baseAddress(), key, 8, dst, 0), "not mapped here yet");
        assertEquals(0, dst.getLong(0));
        assertEquals(TransportStatus.OK, pair.readStatus(key, 8, dst), "a posted read maps the region");
        dst.putLong(0, 0);

        pair.memory.buffer().putLong(8, 0xfeedL);
        assertEquals(TransportStatus.OK, pair.endpoint.readImmediate(key.baseAddress(), key, 16, dst, 0));
        assertEquals(0x5ec2e7L, dst.getLong(0));
        assertEquals(0xfeedL, dst.getLong(8), "the owner's store is seen by the next load");
        assertEquals(0, pair.endpoint.outstanding(), "nothing stays in flight");
    }

    @Test
    void shouldRefuseWhatAPostedReadRefuses() throws Exception
    {
        final RemoteKey key = pair.region.remoteKey();
        assertEquals(TransportStatus.OK, pair.readStatus(key, 8, dst));
        final RemoteKey forged = new RemoteKey(key.transportId(), key.nativeKey(), key.baseAddress(), key.length(),
            key.token() ^ 1);
        dst.putLong(0, 0);
        assertEquals(TransportStatus.INVALID_RKEY, pair.endpoint.readImmediate(key.baseAddress(), forged, 8, dst, 0));
        assertEquals(TransportStatus.OUT_OF_BOUNDS,
            pair.endpoint.readImmediate(key.baseAddress() + ShmPair.MEMORY_BYTES - 4, key, 8, dst, 0));
        assertEquals(0, dst.getLong(0), "a refused read copies nothing");

        pair.region.close();
        assertEquals(TransportStatus.INVALID_RKEY, pair.endpoint.readImmediate(key.baseAddress(), key, 8, dst, 0),
            "deregistered: the region-table word changed, though the mapping is still here");
        assertEquals(0, dst.getLong(0));
    }

    @Test
    void shouldRefuseOnceTheEndpointIsClosed() throws Exception
    {
        final RemoteKey key = pair.region.remoteKey();
        assertEquals(TransportStatus.OK, pair.readStatus(key, 8, dst));
        pair.endpoint.close();
        final TransportStatus status = pair.endpoint.readImmediate(key.baseAddress(), key, 8, dst, 0);
        assertTrue(status == TransportStatus.CLOSED || status == TransportStatus.NOT_CONNECTED, String.valueOf(status));
    }
}
