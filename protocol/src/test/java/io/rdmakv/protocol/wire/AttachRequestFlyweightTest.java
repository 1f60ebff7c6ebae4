package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class AttachRequestFlyweightTest
{
    private static final byte[] TICKET = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, (byte)0xFF};

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final MessageDecoder decoder = new MessageDecoder();

    private int encode(final int offset)
    {
        return new AttachRequestFlyweight().wrap(buffer, offset, 128)
            .header(MessageType.ATTACH_REQUEST, 42).ticket(TICKET).encodedLength();
    }

    @Test
    void shouldRoundTripTheTicket()
    {
        final int length = encode(8);
        assertEquals(AttachRequestFlyweight.ENCODED_LENGTH, length);
        assertEquals(32, length);
        assertEquals(MessageType.ATTACH_REQUEST, decoder.decode(buffer, 8, length));
        assertEquals(42, decoder.correlationId());
        final AttachRequestFlyweight attach = decoder.attachRequest();
        assertArrayEquals(TICKET, attach.ticket());
        assertEquals(buffer.getLong(8 + 16, ByteOrder.LITTLE_ENDIAN), attach.ticketHigh());
        assertEquals(buffer.getLong(8 + 24, ByteOrder.LITTLE_ENDIAN), attach.ticketLow());
        assertEquals(7, MessageType.ATTACH_REQUEST.code(), "stable wire code");
    }

    @Test
    void shouldRejectTruncatedAndOverlongBodiesWithTypedErrors()
    {
        final int length = encode(0);
        for (int truncated = 0; truncated < length; truncated++)
        {
            final int at = truncated;
            assertEquals(ErrorCode.TRUNCATED,
                assertThrows(ProtocolException.class, () -> decoder.decode(buffer, 0, at)).errorCode(),
                "length " + truncated);
        }
        // A body that claims (and has) one byte more than the ticket.
        buffer.putInt(MessageHeaderFlyweight.BODY_LENGTH_OFFSET, 17, ByteOrder.LITTLE_ENDIAN);
        assertEquals(ErrorCode.BAD_LENGTH,
            assertThrows(ProtocolException.class, () -> decoder.decode(buffer, 0, length + 1)).errorCode());
        // A body that claims fewer bytes than the ticket and has exactly that many.
        buffer.putInt(MessageHeaderFlyweight.BODY_LENGTH_OFFSET, 8, ByteOrder.LITTLE_ENDIAN);
        assertEquals(ErrorCode.TRUNCATED,
            assertThrows(ProtocolException.class, () -> decoder.decode(buffer, 0, 16 + 8)).errorCode());
    }

    @Test
    void shouldRefuseToEncodeATicketOfTheWrongLength()
    {
        final AttachRequestFlyweight attach = new AttachRequestFlyweight().wrap(buffer, 0, 128)
            .header(MessageType.ATTACH_REQUEST, 1);
        assertEquals(ErrorCode.BAD_LENGTH,
            assertThrows(ProtocolException.class, () -> attach.ticket(new byte[15])).errorCode());
        final AttachRequestFlyweight tooSmall = new AttachRequestFlyweight().wrap(buffer, 0, 20)
            .header(MessageType.ATTACH_REQUEST, 1);
        assertEquals(ErrorCode.TRUNCATED,
            assertThrows(ProtocolException.class, () -> tooSmall.ticket(TICKET)).errorCode());
    }

    @Test
    void shouldNotValidateAnotherTypeAsAnAttach()
    {
        final int length = encode(0);
        buffer.putByte(MessageHeaderFlyweight.TYPE_OFFSET, (byte)MessageType.STATS_REQUEST.code());
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> new AttachRequestFlyweight().wrap(buffer, 0, length).validate()).errorCode());
    }
}
