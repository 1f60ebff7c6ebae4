package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The wire format of the TCP transport: length-prefixed binary frames, big-endian (Netty's default order).
 *
 * <pre>
 *  Every frame
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |            Frame length (i32): bytes after this field         |
 *  +---------------+-----------------------------------------------+
 *  |   Type (u8)   |  Body ...                                     |
 *  +---------------+-----------------------------------------------+
 *
 *  MESSAGE (1): the body is the message payload, 0..maxMessageBytes bytes.
 *
 *  READ_REQUEST (2): body of 32 bytes
 *  +---------------------------------------------------------------+
 *  |                     Correlation id (i64)                      |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     Region id (i32)                           |
 *  +---------------------------------------------------------------+
 *  |                     Length (i32)                              |
 *  +---------------------------------------------------------------+
 *  |                     Token (i64)                               |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     Address (i64), absolute in the target     |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *
 *  READ_RESPONSE (3): body of 12 bytes plus the data (only when status is OK)
 *  +---------------------------------------------------------------+
 *  |                     Correlation id (i64)                      |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     Status code (i32, TransportStatus.code)   |
 *  +---------------------------------------------------------------+
 *  |                     Data ...                                  |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * A frame whose length exceeds {@link #maxFrameLength} is refused by the decoder and the connection is closed.
 */
public final class TcpFrames
{
    public static final int LENGTH_FIELD_LENGTH = 4;
    public static final int TYPE_LENGTH = 1;

    public static final byte TYPE_MESSAGE = 1;
    public static final byte TYPE_READ_REQUEST = 2;
    public static final byte TYPE_READ_RESPONSE = 3;

    public static final int READ_REQUEST_BODY_LENGTH = 32;
    public static final int READ_RESPONSE_HEADER_LENGTH = 12;

    /** Header bytes in front of a message payload. */
    public static final int MESSAGE_OVERHEAD = LENGTH_FIELD_LENGTH + TYPE_LENGTH;

    private TcpFrames()
    {
    }

    /** The largest legal frame length (the value of the length field) for these limits. */
    public static int maxFrameLength(final int maxMessageBytes, final int maxReadBytes)
    {
        return TYPE_LENGTH + Math.max(maxMessageBytes, READ_RESPONSE_HEADER_LENGTH + maxReadBytes);
    }

    /** A complete MESSAGE frame holding a copy of the payload written by the caller after this header. */
    public static ByteBuf messageFrame(final ByteBufAllocator alloc, final int payloadLength)
    {
        final ByteBuf buf = alloc.directBuffer(MESSAGE_OVERHEAD + payloadLength);
        writeMessageHeader(buf, payloadLength);
        return buf;
    }

    /** Append a MESSAGE frame's header for {@code payloadLength} bytes that the caller writes next. */
    public static void writeMessageHeader(final ByteBuf buf, final int payloadLength)
    {
        buf.writeInt(TYPE_LENGTH + payloadLength);
        buf.writeByte(TYPE_MESSAGE);
    }

    public static ByteBuf readRequestFrame(
        final ByteBufAllocator alloc, final long correlationId, final int regionId, final int length,
        final long token, final long address)
    {
        final ByteBuf buf = alloc.directBuffer(LENGTH_FIELD_LENGTH + TYPE_LENGTH + READ_REQUEST_BODY_LENGTH);
        buf.writeInt(TYPE_LENGTH + READ_REQUEST_BODY_LENGTH);
        buf.writeByte(TYPE_READ_REQUEST);
        buf.writeLong(correlationId);
        buf.writeInt(regionId);
        buf.writeInt(length);
        buf.writeLong(token);
        buf.writeLong(address);
        return buf;
    }

    /** A READ_RESPONSE header for {@code dataLength} bytes that the caller writes next. */
    public static ByteBuf readResponseFrame(
        final ByteBufAllocator alloc, final long correlationId, final int statusCode, final int dataLength)
    {
        final ByteBuf buf = alloc.directBuffer(
            LENGTH_FIELD_LENGTH + TYPE_LENGTH + READ_RESPONSE_HEADER_LENGTH + dataLength);
        buf.writeInt(TYPE_LENGTH + READ_RESPONSE_HEADER_LENGTH + dataLength);
        buf.writeByte(TYPE_READ_RESPONSE);
        buf.writeLong(correlationId);
        buf.writeInt(statusCode);
        return buf;
    }
}
