package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A cursor that writes a control frame and refuses to exceed its limit (the buffer or the frame maximum) with a
 * {@link ErrorCode#FRAME_TOO_LARGE} {@link ProtocolException}; also range-checks length-prefixed fields.
 */
final class FrameWriter
{
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private final MutableDirectBuffer buffer;
    private final int start;
    private final int limit;
    private int position;

    FrameWriter(final MutableDirectBuffer buffer, final int offset, final int maxLength)
    {
        this.buffer = buffer;
        this.start = offset;
        this.position = offset;
        this.limit = offset + Math.min(maxLength, buffer.isExpandable() ? maxLength : buffer.capacity() - offset);
    }

    int length()
    {
        return position - start;
    }

    FrameWriter u8(final int value)
    {
        need(1);
        buffer.putByte(position++, (byte)value);
        return this;
    }

    FrameWriter u16(final int value)
    {
        need(2);
        buffer.putShort(position, (short)value, ORDER);
        position += 2;
        return this;
    }

    FrameWriter i32(final int value)
    {
        need(4);
        buffer.putInt(position, value, ORDER);
        position += 4;
        return this;
    }

    FrameWriter i64(final long value)
    {
        need(8);
        buffer.putLong(position, value, ORDER);
        position += 8;
        return this;
    }

    FrameWriter bytes(final byte[] bytes)
    {
        need(bytes.length);
        buffer.putBytes(position, bytes);
        position += bytes.length;
        return this;
    }

    /** u8 length + UTF-8 bytes. */
    FrameWriter shortString(final String value, final String what)
    {
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 255)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, what + " longer than 255 UTF-8 bytes");
        }
        return u8(bytes.length).bytes(bytes);
    }

    /** u16 length + bytes. */
    FrameWriter blob(final byte[] bytes, final String what)
    {
        if (bytes.length > 0xFFFF)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, what + " longer than 65535 bytes");
        }
        return u16(bytes.length).bytes(bytes);
    }

    private void need(final int bytes)
    {
        if (bytes > limit - position)
        {
            throw new ProtocolException(ErrorCode.FRAME_TOO_LARGE,
                "control frame exceeds " + (limit - start) + " bytes");
        }
    }
}
