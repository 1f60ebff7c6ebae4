package io.rdmakv.transport;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RemoteKeyTest
{
    private final RemoteKey key = new RemoteKey(RemoteKey.TRANSPORT_TCP, 0xCAFEBABE, 0x7F00_1234_5000L, 1L << 33,
        0x0123_4567_89AB_CDEFL);

    @Test
    void shouldRoundTripThroughAByteArray()
    {
        final byte[] packed = key.pack();
        assertEquals(RemoteKey.PACKED_LENGTH, packed.length);
        assertEquals(key, RemoteKey.unpack(packed));
    }

    @Test
    void shouldRoundTripAtAnOffsetInALargerBuffer()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[100]);
        assertEquals(RemoteKey.PACKED_LENGTH, key.pack(buffer, 13));
        assertEquals(key, RemoteKey.unpack(buffer, 13, 100 - 13));
        assertEquals(RemoteKey.VERSION, buffer.getByte(13));
        assertEquals(RemoteKey.TRANSPORT_TCP, buffer.getByte(14));
    }

    @Test
    void shouldRefuseShortInputAndUnknownVersion()
    {
        final byte[] packed = key.pack();
        assertThrows(IllegalArgumentException.class,
            () -> RemoteKey.unpack(new UnsafeBuffer(packed), 0, RemoteKey.PACKED_LENGTH - 1));
        packed[0] = 9;
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RemoteKey.unpack(packed));
        assertTrue(e.getMessage().contains("version 9"));
    }

    @Test
    void shouldCoverOnlyRangesInsideTheRegionWithoutOverflow()
    {
        final RemoteKey small = new RemoteKey(RemoteKey.TRANSPORT_TCP, 1, 1000, 100, 7);
        assertTrue(small.covers(1000, 100));
        assertTrue(small.covers(1099, 1));
        assertTrue(small.covers(1100, 0));
        assertFalse(small.covers(1099, 2));
        assertFalse(small.covers(999, 1));
        assertFalse(small.covers(1000, -1));
        assertFalse(small.covers(Long.MAX_VALUE - 3, 16));
        assertFalse(small.covers(1050, Long.MAX_VALUE));
    }

    @Test
    void shouldNeverPrintTheToken()
    {
        assertFalse(key.toString().toLowerCase().contains(Long.toHexString(key.token())));
        assertFalse(key.toString().contains(Long.toString(key.token())));
    }
}
