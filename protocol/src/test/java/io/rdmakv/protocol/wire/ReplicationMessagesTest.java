package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** REPLICATE and SCAN requests: round trips through the decoder, and typed errors for what is malformed. */
class ReplicationMessagesTest
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(512));
    private final MessageDecoder decoder = new MessageDecoder();

    private static UnsafeBuffer bytes(final String s)
    {
        return new UnsafeBuffer(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRoundTripAReplicatedPut()
    {
        final int length = new ReplicateRequestFlyweight().wrap(buffer, 4, 400)
            .header(MessageType.REPLICATE_REQUEST, 9)
            .write(3, 100, 200, 77L, ReplicateRequestFlyweight.OP_PUT, bytes("key"), 0, 3, bytes("value"), 0, 5)
            .encodedLength();
        assertEquals(16 + 24 + 3 + 5, length);
        assertEquals(MessageType.REPLICATE_REQUEST, decoder.decode(buffer, 4, length));
        final ReplicateRequestFlyweight r = decoder.replicateRequest();
        assertEquals(3, r.primary());
        assertEquals(100, r.firstSlot());
        assertEquals(200, r.lastSlot());
        assertEquals(77L, r.rangeEpoch());
        assertEquals(ReplicateRequestFlyweight.OP_PUT, r.op());
        final byte[] key = new byte[r.keyLength()];
        buffer.getBytes(r.keyIndex(), key);
        assertArrayEquals("key".getBytes(StandardCharsets.UTF_8), key);
        assertEquals(5, r.valueLength());
        assertEquals(8, MessageType.REPLICATE_REQUEST.code(), "stable wire code");
        assertEquals(12, Status.STALE_EPOCH.code(), "stable status code");
    }

    @Test
    void shouldRefuseMalformedReplicationMessages()
    {
        final ReplicateRequestFlyweight r = new ReplicateRequestFlyweight().wrap(buffer, 0, 400);
        int length = r.header(MessageType.REPLICATE_REQUEST, 1)
            .write(1, 0, 10, 1, ReplicateRequestFlyweight.OP_DELETE, bytes("k"), 0, 1, bytes("v"), 0, 1)
            .encodedLength();
        assertEquals(ErrorCode.BAD_LENGTH, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, 16 + 24 + 2)).errorCode(), "a DELETE carries no value");
        length = r.write(1, 0, 10, 1, ReplicateRequestFlyweight.OP_DROP, bytes("k"), 0, 1, bytes(""), 0, 0)
            .encodedLength();
        final int dropWithKey = length;
        assertEquals(ErrorCode.KEY_TOO_LARGE, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, dropWithKey)).errorCode(), "a DROP carries no key");
        length = r.write(1, 0, 10, 1, 9, bytes("k"), 0, 1, bytes(""), 0, 0).encodedLength();
        final int badOp = length;
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, badOp)).errorCode());
        length = r.write(1, 20, 10, 1, ReplicateRequestFlyweight.OP_PUT, bytes("k"), 0, 1, bytes(""), 0, 0)
            .encodedLength();
        final int backwards = length;
        assertEquals(ErrorCode.BAD_LENGTH, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, backwards)).errorCode(), "last slot before first");
    }

    @Test
    void shouldRoundTripAScanRequestAndCheckItsCursorLength()
    {
        final byte[] cursor = {0, 5, 'a', 'b'};
        final int length = new ScanRequestFlyweight().wrap(buffer, 0, 400).header(MessageType.SCAN_REQUEST, 3)
            .scan(0, 16_383, 65_536, 12L, cursor).encodedLength();
        assertEquals(16 + 20 + 4, length);
        assertEquals(MessageType.SCAN_REQUEST, decoder.decode(buffer, 0, length));
        final ScanRequestFlyweight s = decoder.scanRequest();
        assertEquals(0, s.firstSlot());
        assertEquals(16_383, s.lastSlot());
        assertEquals(65_536, s.pageBytes());
        assertEquals(12L, s.snapshotId());
        final byte[] read = new byte[s.cursorLength()];
        buffer.getBytes(s.cursorIndex(), read);
        assertArrayEquals(cursor, read);
        buffer.putShort(ScanRequestFlyweight.CURSOR_LENGTH_OFFSET, (short)9, ByteOrder.LITTLE_ENDIAN);
        assertEquals(ErrorCode.BAD_LENGTH, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, length)).errorCode());
        assertEquals(9, MessageType.SCAN_REQUEST.code(), "stable wire code");
    }
}
