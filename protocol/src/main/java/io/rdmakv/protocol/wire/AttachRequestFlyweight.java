package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.DirectBuffer;

/**
 * {@link MessageType#ATTACH_REQUEST}: the first message a client sends on a new data endpoint. It carries the session
 * ticket the node handed out in its WELCOME ({@link Welcome#sessionTicket()}), so the data port serves only clients
 * that passed the control-plane handshake (and its credential check). The node answers RESPONSE OK, or
 * UNAUTHENTICATED and closes the endpoint.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Message header (16 B, type ATTACH)           ...  0
 *  +---------------------------------------------------------------+
 *  |                 Session ticket, high 64 bits (u64)            |  16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 Session ticket, low 64 bits (u64)             |  24
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  body length = 16 exactly; the ticket's 16 bytes are opaque (random), the two halves are just how they are read
 * </pre>
 */
public final class AttachRequestFlyweight extends MessageHeaderFlyweight
{
    public static final int TICKET_OFFSET = HEADER_LENGTH;
    public static final int BODY_LENGTH = Welcome.SESSION_TICKET_LENGTH;
    public static final int ENCODED_LENGTH = HEADER_LENGTH + BODY_LENGTH;

    /** Covariant {@link MessageHeaderFlyweight#header}, so encoding chains: {@code wrap(..).header(..).ticket(..)}. */
    @Override
    public AttachRequestFlyweight header(final MessageType type, final long correlationId)
    {
        super.header(type, correlationId);
        return this;
    }

    @Override
    public AttachRequestFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * Header checks plus: the type is ATTACH and the body is exactly the ticket.
     *
     * @throws ProtocolException {@link ErrorCode#MALFORMED}, {@link ErrorCode#TRUNCATED}, {@link ErrorCode#BAD_LENGTH}
     *                           or a header error.
     */
    @Override
    public AttachRequestFlyweight validate()
    {
        super.validate();
        if (type() != MessageType.ATTACH_REQUEST)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "not an attach request: " + type());
        }
        final long bodyLength = bodyLengthUnsigned();
        if (bodyLength < BODY_LENGTH)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED,
                "attach body of " + bodyLength + " bytes, the ticket needs " + BODY_LENGTH);
        }
        if (bodyLength > BODY_LENGTH)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH,
                "attach body of " + bodyLength + " bytes, expected exactly " + BODY_LENGTH);
        }
        return this;
    }

    /** The ticket's first 8 bytes as read little-endian (with {@link #ticketLow()}: a key without allocation). */
    public long ticketHigh()
    {
        return buffer.getLong(offset + TICKET_OFFSET, ORDER);
    }

    /** The ticket's last 8 bytes as read little-endian. */
    public long ticketLow()
    {
        return buffer.getLong(offset + TICKET_OFFSET + 8, ORDER);
    }

    /** A copy of the ticket's 16 bytes. */
    public byte[] ticket()
    {
        final byte[] ticket = new byte[BODY_LENGTH];
        buffer.getBytes(offset + TICKET_OFFSET, ticket);
        return ticket;
    }

    /** Set the ticket (exactly {@link Welcome#SESSION_TICKET_LENGTH} bytes) and the body length. */
    public AttachRequestFlyweight ticket(final byte[] ticket)
    {
        if (ticket.length != BODY_LENGTH)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH,
                "session ticket of " + ticket.length + " bytes, expected " + BODY_LENGTH);
        }
        bodyLength(BODY_LENGTH);
        mutable().putBytes(offset + TICKET_OFFSET, ticket);
        return this;
    }
}
