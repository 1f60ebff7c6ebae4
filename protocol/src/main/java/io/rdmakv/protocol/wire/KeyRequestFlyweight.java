package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A request that names one key: {@link MessageType#GET_REQUEST} (the two-sided GET, used when the one-sided path
 * misses or gives up) and {@link MessageType#DELETE_REQUEST}.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Message header (16 B, type GET or DELETE)    ...  0
 *  +-------------------------------+-------------------------------+
 *  |       Key length K (u16)      |         Reserved (u16)        |  16
 *  +-------------------------------+-------------------------------+
 *  |                       Key bytes (K)                          ...  20
 *  +---------------------------------------------------------------+
 *  body length = 4 + K; K &lt;= ProtocolLimits.MAX_KEY_LENGTH
 * </pre>
 */
public final class KeyRequestFlyweight extends MessageHeaderFlyweight
{
    public static final int KEY_LENGTH_OFFSET = HEADER_LENGTH;
    public static final int KEY_OFFSET = HEADER_LENGTH + 4;
    public static final int FIXED_BODY_LENGTH = 4;

    /** Covariant {@link MessageHeaderFlyweight#header}, so encoding chains: {@code wrap(..).header(..).key(..)}. */
    @Override
    public KeyRequestFlyweight header(final MessageType type, final long correlationId)
    {
        super.header(type, correlationId);
        return this;
    }

    @Override
    public KeyRequestFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * Header checks plus: body holds the key length field, the key length is in range and matches the body.
     *
     * @throws ProtocolException with {@link ErrorCode#TRUNCATED}, {@link ErrorCode#BAD_LENGTH},
     *                           {@link ErrorCode#KEY_TOO_LARGE} or a header error.
     */
    @Override
    public KeyRequestFlyweight validate()
    {
        super.validate();
        final MessageType type = type();
        if (type != MessageType.GET_REQUEST && type != MessageType.DELETE_REQUEST)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "not a key request: " + type);
        }
        final long bodyLength = bodyLengthUnsigned();
        if (bodyLength < FIXED_BODY_LENGTH)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED, "key request body of " + bodyLength + " bytes");
        }
        final int keyLength = keyLength();
        if (keyLength > ProtocolLimits.MAX_KEY_LENGTH)
        {
            throw new ProtocolException(ErrorCode.KEY_TOO_LARGE,
                "key length " + keyLength + " > " + ProtocolLimits.MAX_KEY_LENGTH);
        }
        if (hasWriteId() && type != MessageType.DELETE_REQUEST)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "a write id on a " + type);
        }
        if (FIXED_BODY_LENGTH + keyLength + writeIdLength() != bodyLength)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH,
                "key length " + keyLength + " disagrees with body length " + bodyLength);
        }
        validateWriteId();
        return this;
    }

    public int keyLength()
    {
        return buffer.getShort(offset + KEY_LENGTH_OFFSET, ORDER) & 0xFFFF;
    }

    /** Index of the first key byte in {@link #buffer()}. */
    public int keyIndex()
    {
        return offset + KEY_OFFSET;
    }

    /** Copy the key into {@code destination}; returns its length. */
    public int getKey(final MutableDirectBuffer destination, final int destinationOffset)
    {
        final int keyLength = keyLength();
        destination.putBytes(destinationOffset, buffer, keyIndex(), keyLength);
        return keyLength;
    }

    /** Set the key and the body length. */
    public KeyRequestFlyweight key(final DirectBuffer source, final int sourceOffset, final int keyLength)
    {
        checkKeyLength(keyLength);
        bodyLength(FIXED_BODY_LENGTH + keyLength);
        final MutableDirectBuffer b = mutable();
        b.putShort(offset + KEY_LENGTH_OFFSET, (short)keyLength, ORDER);
        b.putShort(offset + KEY_LENGTH_OFFSET + 2, (short)0, ORDER);
        b.putBytes(offset + KEY_OFFSET, source, sourceOffset, keyLength);
        return this;
    }

    public KeyRequestFlyweight key(final byte[] key)
    {
        checkKeyLength(key.length);
        bodyLength(FIXED_BODY_LENGTH + key.length);
        final MutableDirectBuffer b = mutable();
        b.putShort(offset + KEY_LENGTH_OFFSET, (short)key.length, ORDER);
        b.putShort(offset + KEY_LENGTH_OFFSET + 2, (short)0, ORDER);
        b.putBytes(offset + KEY_OFFSET, key);
        return this;
    }

    static void checkKeyLength(final int keyLength)
    {
        if (keyLength < 0 || keyLength > ProtocolLimits.MAX_KEY_LENGTH)
        {
            throw new ProtocolException(ErrorCode.KEY_TOO_LARGE,
                "key length " + keyLength + " not in 0.." + ProtocolLimits.MAX_KEY_LENGTH);
        }
    }
}
