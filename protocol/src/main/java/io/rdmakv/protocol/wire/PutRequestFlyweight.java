package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * {@link MessageType#PUT_REQUEST}: store a value under a key.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Message header (16 B, type PUT)              ...  0
 *  +-------------------------------+-------------------------------+
 *  |       Key length K (u16)      |         Reserved (u16)        |  16
 *  +-------------------------------+-------------------------------+
 *  |                       Value length V (u32)                    |  20
 *  +---------------------------------------------------------------+
 *  |                       Key bytes (K)                          ...  24
 *  +---------------------------------------------------------------+
 *  |                       Value bytes (V)                        ...  24 + K
 *  +---------------------------------------------------------------+
 *  |                       Write id (24 B, only with FLAG_WRITE_ID) ...  24 + K + V
 *  +---------------------------------------------------------------+
 *  body length = 8 + K + V (+ 24); K &lt;= MAX_KEY_LENGTH; V &lt;= MAX_FORMAT_VALUE_LENGTH
 *  (the server applies its own, smaller configured value limit)
 * </pre>
 *
 * Encode with {@link #keyAndValue}; both lengths are written together so the body length is always consistent.
 */
public final class PutRequestFlyweight extends MessageHeaderFlyweight
{
    public static final int KEY_LENGTH_OFFSET = HEADER_LENGTH;
    public static final int VALUE_LENGTH_OFFSET = HEADER_LENGTH + 4;
    public static final int KEY_OFFSET = HEADER_LENGTH + 8;
    public static final int FIXED_BODY_LENGTH = 8;

    /** Covariant {@link MessageHeaderFlyweight#header}, so encoding chains: {@code wrap(..).header(..).key(..)}. */
    @Override
    public PutRequestFlyweight header(final MessageType type, final long correlationId)
    {
        super.header(type, correlationId);
        return this;
    }

    @Override
    public PutRequestFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * Header checks plus the key and value lengths against the body and the format limits.
     *
     * @throws ProtocolException {@link ErrorCode#TRUNCATED}, {@link ErrorCode#BAD_LENGTH},
     *                           {@link ErrorCode#KEY_TOO_LARGE}, {@link ErrorCode#VALUE_TOO_LARGE} or a header error.
     */
    @Override
    public PutRequestFlyweight validate()
    {
        super.validate();
        final long bodyLength = checkTypeAndFixedBody(MessageType.PUT_REQUEST, "put request", FIXED_BODY_LENGTH);
        final int keyLength = keyLength();
        final long valueLength = buffer.getInt(offset + VALUE_LENGTH_OFFSET, ORDER) & 0xFFFF_FFFFL;
        if (keyLength > ProtocolLimits.MAX_KEY_LENGTH)
        {
            throw new ProtocolException(ErrorCode.KEY_TOO_LARGE,
                "key length " + keyLength + " > " + ProtocolLimits.MAX_KEY_LENGTH);
        }
        if (FIXED_BODY_LENGTH + keyLength + valueLength + writeIdLength() != bodyLength)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, "key length " + keyLength + " + value length " +
                valueLength + " disagree with body length " + bodyLength);
        }
        if (valueLength > ProtocolLimits.MAX_FORMAT_VALUE_LENGTH)
        {
            throw new ProtocolException(ErrorCode.VALUE_TOO_LARGE,
                "value length " + valueLength + " > " + ProtocolLimits.MAX_FORMAT_VALUE_LENGTH);
        }
        validateWriteId();
        return this;
    }

    public int keyLength()
    {
        return buffer.getShort(offset + KEY_LENGTH_OFFSET, ORDER) & 0xFFFF;
    }

    public int valueLength()
    {
        return buffer.getInt(offset + VALUE_LENGTH_OFFSET, ORDER);
    }

    public int keyIndex()
    {
        return offset + KEY_OFFSET;
    }

    public int valueIndex()
    {
        return offset + KEY_OFFSET + keyLength();
    }

    /** Set key, value and the body length. */
    public PutRequestFlyweight keyAndValue(
        final DirectBuffer key, final int keyOffset, final int keyLength,
        final DirectBuffer value, final int valueOffset, final int valueLength)
    {
        KeyRequestFlyweight.checkKeyLength(keyLength);
        if (valueLength < 0 || valueLength > ProtocolLimits.MAX_FORMAT_VALUE_LENGTH)
        {
            throw new ProtocolException(ErrorCode.VALUE_TOO_LARGE, "value length " + valueLength);
        }
        bodyLength(FIXED_BODY_LENGTH + keyLength + valueLength);
        final MutableDirectBuffer b = mutable();
        b.putShort(offset + KEY_LENGTH_OFFSET, (short)keyLength, ORDER);
        b.putShort(offset + KEY_LENGTH_OFFSET + 2, (short)0, ORDER);
        b.putInt(offset + VALUE_LENGTH_OFFSET, valueLength, ORDER);
        b.putBytes(offset + KEY_OFFSET, key, keyOffset, keyLength);
        b.putBytes(offset + KEY_OFFSET + keyLength, value, valueOffset, valueLength);
        return this;
    }

    public PutRequestFlyweight keyAndValue(final byte[] key, final byte[] value)
    {
        KeyRequestFlyweight.checkKeyLength(key.length);
        if (value.length > ProtocolLimits.MAX_FORMAT_VALUE_LENGTH)
        {
            throw new ProtocolException(ErrorCode.VALUE_TOO_LARGE, "value length " + value.length);
        }
        bodyLength(FIXED_BODY_LENGTH + key.length + value.length);
        final MutableDirectBuffer b = mutable();
        b.putShort(offset + KEY_LENGTH_OFFSET, (short)key.length, ORDER);
        b.putShort(offset + KEY_LENGTH_OFFSET + 2, (short)0, ORDER);
        b.putInt(offset + VALUE_LENGTH_OFFSET, value.length, ORDER);
        b.putBytes(offset + KEY_OFFSET, key);
        b.putBytes(offset + KEY_OFFSET + key.length, value);
        return this;
    }
}
