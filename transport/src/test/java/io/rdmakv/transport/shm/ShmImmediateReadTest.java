package io.rdmakv.transport.shm;

import io.rdmakv.transport.Endpoint;
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
    void shouldDoABatchInOneCallEachWithItsOwnAnswerAndStopAtTheFirstNotMapped() throws Exception
    {
        final RemoteKey key = pair.region.remoteKey();
        final UnsafeBuffer second = new UnsafeBuffer(ByteBuffer.allocateDirect(8));
        final Endpoint.ReadRequest[] batch = {new Endpoint.ReadRequest(), new Endpoint.ReadRequest(),
            new Endpoint.ReadRequest()};
        batch[0].set(key.baseAddress(), key, 8, dst, 0, null);
        batch[1].set(key.baseAddress() + ShmPair.MEMORY_BYTES - 4, key, 8, dst, 8, null);
        batch[2].set(key.baseAddress() + 8, key, 8, second, 0, null);
        assertEquals(0, pair.endpoint.readImmediate(batch, 0, 3), "not mapped here yet: the first is not done");
        assertNull(batch[0].immediateStatus);

        assertEquals(TransportStatus.OK, pair.readStatus(key, 8, dst), "a posted read maps the region");
        dst.putLong(0, 0);
        pair.memory.buffer().putLong(8, 0xbeefL);
        assertEquals(3, pair.endpoint.readImmediate(batch, 0, 3));
        assertEquals(TransportStatus.OK, batch[0].immediateStatus);
        assertEquals(TransportStatus.OUT_OF_BOUNDS, batch[1].immediateStatus, "its own answer, the others go on");
        assertEquals(TransportStatus.OK, batch[2].immediateStatus);
        assertEquals(0x5ec2e7L, dst.getLong(0));
        assertEquals(0, dst.getLong(8), "a refused read copies nothing");
        assertEquals(0xbeefL, second.getLong(0));
        assertEquals(3, pair.endpoint.readImmediate(batch, 2, 3), "from the middle");
        assertEquals(0, pair.endpoint.outstanding(), "nothing stays in flight");

        pair.endpoint.close();
        assertEquals(1, pair.endpoint.readImmediate(batch, 0, 1));
        assertTrue(batch[0].immediateStatus == TransportStatus.CLOSED ||
            batch[0].immediateStatus == TransportStatus.NOT_CONNECTED, String.valueOf(batch[0].immediateStatus));
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
