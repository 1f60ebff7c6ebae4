package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * {@link MessageType#RECORD_WRITE_REQUEST}: a write that reads the key's current record on the primary first (a
 * condition on its data version, a counter, an expiry change), or a PUT with an expiry.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Message header (16 B, type RECORD_WRITE)     ...  0
 *  +---------------+---------------+-------------------------------+
 *  |    Op (u8)    |  Flags (u8)   |       Key length K (u16)      |  16
 *  +---------------+---------------+-------------------------------+
 *  |                       Value length V (u32)                    |  20
 *  +---------------------------------------------------------------+
 *  |                 Expected data version (u64)                   |  24
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |     Argument (i64): expiry, ms since the epoch (0 = none), or the INCREMENT's delta   |  32
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                       Key bytes (K)                          ...  40
 *  +---------------------------------------------------------------+
 *  |                       Value bytes (V, PUT ops only)          ...  40 + K
 *  +---------------------------------------------------------------+
 *  |                       Write id (24 B, only with FLAG_WRITE_ID) ...
 *  +---------------------------------------------------------------+
 *  body length = 24 + K + V (+ 24)
 *
 *  Op                 expected   argument   value   answer (RESPONSE)
 *  1 PUT              keep (*)   expiry     yes     OK
 *  2 PUT_IF_ABSENT    -          expiry     yes     OK | CONDITION_FAILED (version: the present one's)
 *  3 PUT_IF_VERSION   version    expiry     yes     OK | CONDITION_FAILED (version: the present one's, 0 absent)
 *  4 DELETE_IF_VERSION version   -          no      OK | CONDITION_FAILED (as above)
 *  5 INCREMENT        -          delta      no      OK, value: the new value (decimal ASCII) | NOT_AN_INTEGER
 *  6 EXPIRE           -          expiry > 0 no      OK | NOT_FOUND
 *  7 PERSIST          -          -          no      OK | NOT_FOUND
 *  8 TTL (a read)     -          -          no      OK, version: the data version, value: the expiry (u64) | NOT_FOUND
 *  (*) 0: the primary versions the value; else the data version to store (a restore writing a backup's record
 *      back: the node observes it, so its later versions stay above it)
 *  Flags: 0x1 (DELETE_IF_VERSION only) an expired record counts as present: the node's expiry sweep removes it
 *  An OK write answers, as a PUT does, the index entry it published (0: not placed) and then its data version (u64).
 * </pre>
 */
public final class RecordWriteRequestFlyweight extends MessageHeaderFlyweight
{
    public static final int OP_PUT = 1;
    public static final int OP_PUT_IF_ABSENT = 2;
    public static final int OP_PUT_IF_VERSION = 3;
    public static final int OP_DELETE_IF_VERSION = 4;
    public static final int OP_INCREMENT = 5;
    public static final int OP_EXPIRE = 6;
    public static final int OP_PERSIST = 7;
    public static final int OP_TTL = 8;
    /** Flag: an expired record counts as present (the expiry sweep's DELETE_IF_VERSION of the record it read). */
    public static final int FLAG_INCLUDE_EXPIRED = 1;

    public static final int OP_OFFSET = HEADER_LENGTH;
    public static final int KEY_LENGTH_OFFSET = HEADER_LENGTH + 2;
    public static final int VALUE_LENGTH_OFFSET = HEADER_LENGTH + 4;
    public static final int EXPECTED_VERSION_OFFSET = HEADER_LENGTH + 8;
    public static final int ARGUMENT_OFFSET = HEADER_LENGTH + 16;
    public static final int KEY_OFFSET = HEADER_LENGTH + 24;
    public static final int FIXED_BODY_LENGTH = 24;

    @Override
    public RecordWriteRequestFlyweight header(final MessageType type, final long correlationId)
    {
        super.header(type, correlationId);
        return this;
    }

    @Override
    public RecordWriteRequestFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /** Whether {@code op} carries a value (the PUT ops). */
    public static boolean carriesValue(final int op)
    {
        return op == OP_PUT || op == OP_PUT_IF_ABSENT || op == OP_PUT_IF_VERSION;
    }

    /**
     * Header checks, the op, the lengths against the body and the format limits, an EXPIRE's expiry.
     *
     * @throws ProtocolException {@link ErrorCode#MALFORMED}, {@link ErrorCode#BAD_LENGTH},
     *                           {@link ErrorCode#KEY_TOO_LARGE}, {@link ErrorCode#VALUE_TOO_LARGE} or a header error.
     */
    @Override
    public RecordWriteRequestFlyweight validate()
    {
        super.validate();
        final long bodyLength = checkTypeAndFixedBody(MessageType.RECORD_WRITE_REQUEST, "record write request",
            FIXED_BODY_LENGTH);
        final int op = op();
        if (op < OP_PUT || op > OP_TTL)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "record write op " + op);
        }
        final int keyLength = keyLength();
        final long valueLength = buffer.getInt(offset + VALUE_LENGTH_OFFSET, ORDER) & 0xFFFF_FFFFL;
        if (keyLength == 0 || keyLength > ProtocolLimits.MAX_KEY_LENGTH)
        {
            throw new ProtocolException(ErrorCode.KEY_TOO_LARGE, "key length " + keyLength + " not in 1.." +
                ProtocolLimits.MAX_KEY_LENGTH);
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
        if (valueLength != 0 && !carriesValue(op))
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "record write op " + op + " carries no value");
        }
        if ((carriesValue(op) || op == OP_EXPIRE) && argument() < 0 || op == OP_EXPIRE && argument() == 0)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "expiry " + argument() + " of op " + op +
                " (ms since the epoch; 0 = none, EXPIRE needs one)");
        }
        validateWriteId();
        return this;
    }

    public int op()
    {
        return buffer.getByte(offset + OP_OFFSET) & 0xFF;
    }

    public int keyLength()
    {
        return buffer.getShort(offset + KEY_LENGTH_OFFSET, ORDER) & 0xFFFF;
    }

    /** The request's own flags ({@link #FLAG_INCLUDE_EXPIRED}). */
    public int recordFlags()
    {
        return buffer.getByte(offset + OP_OFFSET + 1) & 0xFF;
    }

    /** Set the request's own flags (after {@link #write}). */
    public RecordWriteRequestFlyweight recordFlags(final int flags)
    {
        mutable().putByte(offset + OP_OFFSET + 1, (byte)flags);
        return this;
    }

    public int valueLength()
    {
        return buffer.getInt(offset + VALUE_LENGTH_OFFSET, ORDER);
    }

    public long expectedVersion()
    {
        return buffer.getLong(offset + EXPECTED_VERSION_OFFSET, ORDER);
    }

    /** The expiry (PUT ops, EXPIRE) or the delta (INCREMENT). */
    public long argument()
    {
        return buffer.getLong(offset + ARGUMENT_OFFSET, ORDER);
    }

    public int keyIndex()
    {
        return offset + KEY_OFFSET;
    }

    public int valueIndex()
    {
        return offset + KEY_OFFSET + keyLength();
    }

    /** Set every field and the body length, key and value from buffers (from index 0). */
    public RecordWriteRequestFlyweight write(final int op, final long expectedVersion, final long argument,
        final DirectBuffer key, final int keyLength, final DirectBuffer value, final int valueLength)
    {
        KeyRequestFlyweight.checkKeyLength(keyLength);
        if (valueLength < 0 || valueLength > ProtocolLimits.MAX_FORMAT_VALUE_LENGTH)
        {
            throw new ProtocolException(ErrorCode.VALUE_TOO_LARGE, "value length " + valueLength);
        }
        bodyLength(FIXED_BODY_LENGTH + keyLength + valueLength);
        final MutableDirectBuffer b = mutable();
        b.putByte(offset + OP_OFFSET, (byte)op);
        b.putByte(offset + OP_OFFSET + 1, (byte)0);
        b.putShort(offset + KEY_LENGTH_OFFSET, (short)keyLength, ORDER);
        b.putInt(offset + VALUE_LENGTH_OFFSET, valueLength, ORDER);
        b.putLong(offset + EXPECTED_VERSION_OFFSET, expectedVersion, ORDER);
        b.putLong(offset + ARGUMENT_OFFSET, argument, ORDER);
        b.putBytes(offset + KEY_OFFSET, key, 0, keyLength);
        if (valueLength > 0)
        {
            b.putBytes(offset + KEY_OFFSET + keyLength, value, 0, valueLength);
        }
        return this;
    }

    /** Set every field and the body length. */
    public RecordWriteRequestFlyweight write(final int op, final long expectedVersion, final long argument,
        final byte[] key, final byte[] value)
    {
        KeyRequestFlyweight.checkKeyLength(key.length);
        if (value.length > ProtocolLimits.MAX_FORMAT_VALUE_LENGTH)
        {
            throw new ProtocolException(ErrorCode.VALUE_TOO_LARGE, "value length " + value.length);
        }
        bodyLength(FIXED_BODY_LENGTH + key.length + value.length);
        final MutableDirectBuffer b = mutable();
        b.putByte(offset + OP_OFFSET, (byte)op);
        b.putByte(offset + OP_OFFSET + 1, (byte)0);
        b.putShort(offset + KEY_LENGTH_OFFSET, (short)key.length, ORDER);
        b.putInt(offset + VALUE_LENGTH_OFFSET, value.length, ORDER);
        b.putLong(offset + EXPECTED_VERSION_OFFSET, expectedVersion, ORDER);
        b.putLong(offset + ARGUMENT_OFFSET, argument, ORDER);
        b.putBytes(offset + KEY_OFFSET, key);
        b.putBytes(offset + KEY_OFFSET + key.length, value);
        return this;
    }
}
