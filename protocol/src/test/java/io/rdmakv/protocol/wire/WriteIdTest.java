package io.rdmakv.protocol.wire;

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

/** The write id a PUT, a DELETE and a replicated write may end with ({@link MessageHeaderFlyweight#FLAG_WRITE_ID}). */
class WriteIdTest
{
    private static final byte[] KEY = "user:42".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VALUE = "v-17".getBytes(StandardCharsets.US_ASCII);

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
    private final MessageDecoder decoder = new MessageDecoder();

    @Test
    void shouldCarryAWriteIdAfterAPutsValue()
    {
        final PutRequestFlyweight put = new PutRequestFlyweight().wrap(buffer, 0, 1024);
        put.header(MessageType.PUT_REQUEST, 7).keyAndValue(KEY, VALUE);
        final int plain = put.encodedLength();
        put.appendWriteId(0xABCD_EF01_2345_6789L, 12, 9);
        assertEquals(plain + MessageHeaderFlyweight.WRITE_ID_LENGTH, put.encodedLength());

        assertEquals(MessageType.PUT_REQUEST, decoder.decode(buffer, 0, put.encodedLength()));
        final PutRequestFlyweight decoded = decoder.putRequest();
        assertTrue(decoded.hasWriteId());
        assertEquals(0xABCD_EF01_2345_6789L, decoded.writerId());
        assertEquals(12, decoded.writeSequence());
        assertEquals(9, decoded.writesCompletedBelow());
        assertEquals(VALUE.length, decoded.valueLength(), "the value's length is unchanged by the write id");
    }

    @Test
    void shouldLeaveAPutWithoutAWriteIdAsBefore()
    {
        final PutRequestFlyweight put = new PutRequestFlyweight().wrap(buffer, 0, 1024);
        put.header(MessageType.PUT_REQUEST, 7).keyAndValue(KEY, VALUE);
        assertEquals(MessageType.PUT_REQUEST, decoder.decode(buffer, 0, put.encodedLength()));
        assertFalse(decoder.putRequest().hasWriteId());
    }

    @Test
    void shouldCarryAWriteIdOnADeleteAndRefuseOneOnAGet()
    {
        final KeyRequestFlyweight delete = new KeyRequestFlyweight().wrap(buffer, 0, 1024);
        delete.header(MessageType.DELETE_REQUEST, 3).key(KEY);
        delete.appendWriteId(5, 1, 1);
        assertEquals(MessageType.DELETE_REQUEST, decoder.decode(buffer, 0, delete.encodedLength()));
        assertEquals(1, decoder.keyRequest().writeSequence());
        assertEquals(KEY.length, decoder.keyRequest().keyLength());

        final KeyRequestFlyweight get = new KeyRequestFlyweight().wrap(buffer, 0, 1024);
        get.header(MessageType.GET_REQUEST, 3).key(KEY);
        get.appendWriteId(5, 1, 1);
        final ProtocolException ex = assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, get.encodedLength()));
        assertEquals(ErrorCode.MALFORMED, ex.errorCode());
    }

    @Test
    void shouldCarryTheClientsWriteIdOnAReplicatedWriteOnly()
    {
        final ReplicateRequestFlyweight r = new ReplicateRequestFlyweight().wrap(buffer, 0, 1024);
        r.header(MessageType.REPLICATE_REQUEST, 4);
        r.write(2, 0, 99, 6, ReplicateRequestFlyweight.OP_PUT, new UnsafeBuffer(KEY), 0, KEY.length,
            new UnsafeBuffer(VALUE), 0, VALUE.length);
        r.appendWriteId(77, 40, 38);
        assertEquals(MessageType.REPLICATE_REQUEST, decoder.decode(buffer, 0, r.encodedLength()));
        final ReplicateRequestFlyweight decoded = decoder.replicateRequest();
        assertEquals(77, decoded.writerId());
        assertEquals(40, decoded.writeSequence());
        assertEquals(38, decoded.writesCompletedBelow());
        assertEquals(VALUE.length, decoded.valueLength());

        r.write(2, 0, 99, 6, ReplicateRequestFlyweight.OP_COPY, new UnsafeBuffer(KEY), 0, KEY.length,
            new UnsafeBuffer(VALUE), 0, VALUE.length);
        r.flags(0);
        r.appendWriteId(77, 40, 38);
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, r.encodedLength())).errorCode(), "a checkpoint copy has no writer");
    }

    @Test
    void shouldRefuseImpossibleWriteIds()
    {
        final PutRequestFlyweight put = new PutRequestFlyweight().wrap(buffer, 0, 1024);
        put.header(MessageType.PUT_REQUEST, 7).keyAndValue(KEY, VALUE);
        assertThrows(ProtocolException.class, () -> put.appendWriteId(0, 1, 1), "writer 0");
        assertThrows(ProtocolException.class, () -> put.appendWriteId(1, 0, 0), "sequence 0");
        assertThrows(ProtocolException.class, () -> put.appendWriteId(1, 5, 6), "completed below past the write");

        put.appendWriteId(1, 5, 5);
        buffer.putLong(put.encodedLength() - 16, 0); // the sequence, as a hostile client might send it
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, put.encodedLength())).errorCode());
    }

    @Test
    void shouldRefuseAFlaggedMessageTooShortForItsWriteId()
    {
        final PutRequestFlyweight put = new PutRequestFlyweight().wrap(buffer, 0, 1024);
        put.header(MessageType.PUT_REQUEST, 7).keyAndValue(KEY, VALUE);
        put.flags(MessageHeaderFlyweight.FLAG_WRITE_ID); // flagged, but no write id appended
        assertEquals(ErrorCode.BAD_LENGTH, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, put.encodedLength())).errorCode());
    }
}
