package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A cursor over a control frame that refuses to read past the frame: every read is checked against the limit and a
 * short frame is a {@link ErrorCode#TRUNCATED} {@link ProtocolException}, never an index error. Control path only.
 */
final class FrameReader
{
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private final DirectBuffer buffer;
    private final int limit;
    private int position;

    FrameReader(final DirectBuffer buffer, final int offset, final int length)
    {
        if (offset < 0 || length < 0 || buffer.capacity() - offset < length)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED,
                "frame of " + length + " bytes at " + offset + " exceeds buffer capacity " + buffer.capacity());
        }
        this.buffer = buffer;
        this.position = offset;
        this.limit = offset + length;
    }

    int remaining()
    {
        return limit - position;
    }

    int u8(final String what)
    {
        need(1, what);
        return buffer.getByte(position++) & 0xFF;
    }

    int u16(final String what)
    {
        need(2, what);
        final int v = buffer.getShort(position, ORDER) & 0xFFFF;
        position += 2;
        return v;
    }

    int i32(final String what)
    {
        need(4, what);
        final int v = buffer.getInt(position, ORDER);
        position += 4;
        return v;
    }

    long i64(final String what)
    {
        need(8, what);
        final long v = buffer.getLong(position, ORDER);
        position += 8;
        return v;
    }

    byte[] bytes(final int length, final String what)
    {
        need(length, what);
        final byte[] bytes = new byte[length];
        buffer.getBytes(position, bytes);
        position += length;
        return bytes;
    }

    /** Strict UTF-8 of {@code length} bytes: invalid sequences are {@link ErrorCode#MALFORMED}. */
    String utf8(final int length, final String what)
    {
        final byte[] bytes = bytes(length, what);
        try
        {
            return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(java.nio.ByteBuffer.wrap(bytes))
                .toString();
        }
        catch (final CharacterCodingException ex)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, what + " is not valid UTF-8");
        }
    }

    void skip(final int length, final String what)
    {
        need(length, what);
        position += length;
    }

    /** A count field must not promise more entries than the remaining bytes could hold. */
    void checkCount(final int count, final int minEntryLength, final String what)
    {
        if ((long)count * minEntryLength > remaining())
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, what + " count " + count + " needs at least " +
                (long)count * minEntryLength + " bytes, " + remaining() + " remain");
        }
    }

    void expectEnd(final String what)
    {
        if (position != limit)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, (limit - position) + " trailing bytes after " + what);
        }
    }

    private void need(final int bytes, final String what)
    {
        if (bytes < 0 || bytes > limit - position)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED,
                what + " needs " + bytes + " bytes, " + (limit - position) + " remain");
        }
    }
}
