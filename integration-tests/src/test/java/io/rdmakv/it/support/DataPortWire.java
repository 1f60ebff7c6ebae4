package io.rdmakv.it.support;


import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;

/**
 * Hand-built bytes for the data port, written from the documented layouts rather than with the project's encoders,
 * so a test can produce exactly the malformed input it wants (and cross-checks the layouts while at it).
 *
 * <pre>
 *  TCP transport frame (big-endian): | length i32 (bytes after it) | type u8 (1 MESSAGE, 2 READ_REQUEST) | body |
 *  rdmakv message (little-endian):   | version u8 | type u8 | flags u16 | body length u32 | correlation id u64 | body |
 *  GET body:                         | key length u16 | reserved u16 | key |
 *  PUT body:                         | key length u16 | reserved u16 | value length u32 | key | value |
 *  RESPONSE body:                    | status u16 | reserved u16 | value length u32 | version u64 | value |
 * </pre>
 */
public final class DataPortWire
{
    public static final byte FRAME_MESSAGE = 1;
    public static final byte FRAME_READ_REQUEST = 2;
    public static final byte FRAME_READ_RESPONSE = 3;

    public static final int VERSION = 1;
    public static final int TYPE_GET = 1;
    public static final int TYPE_PUT = 2;
    public static final int TYPE_RESPONSE = 6;

    private DataPortWire()
    {
    }

    /** A transport frame around {@code body}. */
    public static byte[] frame(final byte type, final byte[] body)
    {
        return ByteBuffer.allocate(5 + body.length).order(ByteOrder.BIG_ENDIAN)
            .putInt(1 + body.length).put(type).put(body).array();
    }

    /** An rdmakv message: header with the given fields, then {@code body}; body length as given. */
    public static byte[] message(final int version, final int type, final long correlationId, final int bodyLength,
        final byte[] body)
    {
        return ByteBuffer.allocate(16 + body.length).order(ByteOrder.LITTLE_ENDIAN)
            .put((byte)version).put((byte)type).putShort((short)0).putInt(bodyLength).putLong(correlationId)
            .put(body).array();
    }

    public static byte[] getBody(final byte[] key)
    {
        return ByteBuffer.allocate(4 + key.length).order(ByteOrder.LITTLE_ENDIAN)
            .putShort((short)key.length).putShort((short)0).put(key).array();
    }

    public static byte[] putBody(final byte[] key, final byte[] value)
    {
        return ByteBuffer.allocate(8 + key.length + value.length).order(ByteOrder.LITTLE_ENDIAN)
            .putShort((short)key.length).putShort((short)0).putInt(value.length).put(key).put(value).array();
    }

    /** A well-formed request message in a MESSAGE frame. */
    public static byte[] request(final int type, final long correlationId, final byte[] body)
    {
        return frame(FRAME_MESSAGE, message(VERSION, type, correlationId, body.length, body));
    }

    /** An emulated-read request: correlation id, region id, length, token, absolute address. */
    public static byte[] readRequest(final long correlationId, final int regionId, final int length, final long token,
        final long address)
    {
        return frame(FRAME_READ_REQUEST, ByteBuffer.allocate(32).order(ByteOrder.BIG_ENDIAN)
            .putLong(correlationId).putInt(regionId).putInt(length).putLong(token).putLong(address).array());
    }

    /** One frame from the server: its type and body. */
    public record Frame(byte type, byte[] body)
    {
        public ByteBuffer le()
        {
            return ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN);
        }

        public ByteBuffer be()
        {
            return ByteBuffer.wrap(body).order(ByteOrder.BIG_ENDIAN);
        }
    }

    public static Frame readFrame(final RawConnection connection, final Duration timeout) throws IOException
    {
        final int length = ByteBuffer.wrap(connection.readExactly(4, timeout)).order(ByteOrder.BIG_ENDIAN).getInt();
        if (length < 1 || length > (8 << 20))
        {
            throw new IOException("implausible frame length from the server: " + length);
        }
        final byte[] rest = connection.readExactly(length, timeout);
        final byte[] body = new byte[length - 1];
        System.arraycopy(rest, 1, body, 0, body.length);
        return new Frame(rest[0], body);
    }

    /** A decoded RESPONSE message. */
    public record Response(long correlationId, int status, byte[] value)
    {
    }

    public static Response readResponse(final RawConnection connection, final Duration timeout) throws IOException
    {
        final Frame frame = readFrame(connection, timeout);
        if (frame.type() != FRAME_MESSAGE)
        {
            throw new IOException("expected a MESSAGE frame, got type " + frame.type());
        }
        final ByteBuffer b = frame.le();
        final int version = b.get(0) & 0xFF;
        final int type = b.get(1) & 0xFF;
        if (version != VERSION || type != TYPE_RESPONSE)
        {
            throw new IOException("expected a v1 RESPONSE, got version " + version + " type " + type);
        }
        final long correlationId = b.getLong(8);
        final int status = b.getShort(16) & 0xFFFF;
        final int valueLength = b.getInt(20);
        final byte[] value = new byte[valueLength];
        b.get(32, value);
        return new Response(correlationId, status, value);
    }
}
