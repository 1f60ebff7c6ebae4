package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PoolHeaderFlyweightTest
{
    private final UnsafeBuffer pool = new UnsafeBuffer(ByteBuffer.allocateDirect(PoolHeaderFlyweight.HEADER_LENGTH));
    private final PoolHeaderFlyweight header = new PoolHeaderFlyweight();
    private final PoolGeometry geometry = PoolGeometry.plan(256L << 20, 1 << 16);

    @Test
    void shouldInitialiseAndReadBackThroughACopy()
    {
        header.wrap(pool, 0).initialise(geometry, 42, 7).keyCount(1234);

        final byte[] copy = new byte[PoolHeaderFlyweight.ENCODED_LENGTH];
        pool.getBytes(0, copy);
        assertEquals("RDMAKV01", new String(copy, 0, 8, StandardCharsets.US_ASCII), "magic is the ASCII bytes");

        final PoolHeaderFlyweight remote = new PoolHeaderFlyweight().wrap(new UnsafeBuffer(copy), 0).validate();
        assertEquals(PoolHeaderFlyweight.LAYOUT_VERSION, remote.layoutVersion());
        assertEquals(geometry, remote.geometry());
        assertEquals(42, remote.nodeId());
        assertEquals(7, remote.epoch());
        assertEquals(1234, remote.keyCount());
        assertEquals(64, remote.bucketSize());
        assertEquals(8, remote.entriesPerBucket());
        assertFalse(remote.isComplete());
    }

    @Test
    void shouldSetAndClearCompleteFlagWithOrderedStores()
    {
        header.wrap(pool, 0).initialise(geometry, 1, 1);
        header.flagsOrdered(0x10);
        header.complete(true);
        assertTrue(header.isComplete());
        assertEquals(0x11, header.flags(), "other flags kept");
        assertEquals(0x11, pool.getInt(PoolHeaderFlyweight.FLAGS_OFFSET, java.nio.ByteOrder.LITTLE_ENDIAN));
        header.complete(false);
        assertEquals(0x10, header.flags());
        header.epoch(8);
        assertEquals(8, header.epoch());
    }

    @Test
    void shouldRejectBadMagicVersionShapeAndShortBuffers()
    {
        header.wrap(pool, 0).initialise(geometry, 1, 1);
        pool.putByte(0, (byte)'X');
        assertEquals(ErrorCode.BAD_MAGIC, assertThrows(ProtocolException.class, header::validate).errorCode());

        header.initialise(geometry, 1, 1);
        pool.putInt(PoolHeaderFlyweight.VERSION_OFFSET, 1, java.nio.ByteOrder.LITTLE_ENDIAN); // before state words
        assertEquals(ErrorCode.UNSUPPORTED_VERSION,
            assertThrows(ProtocolException.class, header::validate).errorCode());

        header.initialise(geometry, 1, 1);
        pool.putInt(PoolHeaderFlyweight.BUCKET_SIZE_OFFSET, 128, java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals(ErrorCode.BAD_GEOMETRY, assertThrows(ProtocolException.class, header::validate).errorCode());

        header.initialise(geometry, 1, 1);
        pool.putLong(PoolHeaderFlyweight.BUCKET_COUNT_OFFSET, 3, java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals(ErrorCode.BAD_GEOMETRY, assertThrows(ProtocolException.class, header::validate).errorCode());

        assertEquals(ErrorCode.TRUNCATED, assertThrows(ProtocolException.class,
            () -> header.wrap(new UnsafeBuffer(new byte[PoolHeaderFlyweight.ENCODED_LENGTH - 1]), 0)).errorCode());
    }
}
