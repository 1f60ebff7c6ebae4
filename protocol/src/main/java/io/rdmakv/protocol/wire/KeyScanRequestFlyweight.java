package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * {@link MessageType#KEY_SCAN_REQUEST}: the keys (and with {@link #WITH_VALUES} their values) a node holds in hash
 * slots {@code firstSlot..lastSlot}, in store order (hash slot, then key bytes), starting after key {@code from} of
 * the first hash slot (at it with {@link #FROM_INCLUSIVE}; an empty {@code from}: the hash slot's first key), up to
 * key {@code to} of the last hash slot (exclusive; empty: to the end of the hash slot), keeping only keys that match
 * the glob {@code match} (Redis's {@code SCAN MATCH}, see {@link io.rdmakv.protocol.KeyGlob}; empty: every key). The
 * node answers at most {@code count} keys and examines a bounded number per request, so one answer may hold none and
 * still not be the end: the answer's page (see {@link KeyScanPage}) names where to resume. The node serves only a run
 * of hash slots it is the primary of, starting at {@code firstSlot} (WRONG_NODE otherwise); it stops at the first
 * hash slot it does not serve, and the page's resume point names it, so the client asks that hash slot's owner.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Message header (16 B, type KEY_SCAN)         ...  0
 *  +-------------------------------+-------------------------------+
 *  |       First slot (u16)        |        Last slot (u16)        |  16
 *  +-------------------------------+-------------------------------+
 *  |     Count, keys at most (u16) |       Scan flags (u16)        |  20
 *  +-------------------------------+-------------------------------+
 *  |     From key length F (u16)   |     To key length T (u16)     |  24
 *  +-------------------------------+-------------------------------+
 *  |     Match length M (u16)      |         Reserved (u16)        |  28
 *  +-------------------------------+-------------------------------+
 *  |  From key (F) | To key (T) | Match glob (M)                  ...  32
 *  +---------------------------------------------------------------+
 *  body length = 16 + F + T + M; first slot &lt;= last slot &lt; 16384; count &gt;= 1
 * </pre>
 */
public final class KeyScanRequestFlyweight extends MessageHeaderFlyweight
{
    public static final int FIRST_SLOT_OFFSET = HEADER_LENGTH;
    public static final int LAST_SLOT_OFFSET = HEADER_LENGTH + 2;
    public static final int COUNT_OFFSET = HEADER_LENGTH + 4;
    public static final int SCAN_FLAGS_OFFSET = HEADER_LENGTH + 6;
    public static final int FROM_LENGTH_OFFSET = HEADER_LENGTH + 8;
    public static final int TO_LENGTH_OFFSET = HEADER_LENGTH + 10;
    public static final int MATCH_LENGTH_OFFSET = HEADER_LENGTH + 12;
    public static final int FROM_OFFSET = HEADER_LENGTH + 16;
    public static final int FIXED_BODY_LENGTH = 16;
    /** Scan flag: answer each key's value too (range and prefix reads). */
    public static final int WITH_VALUES = 0x1;
    /** Scan flag: start at key {@code from} itself, not after it. */
    public static final int FROM_INCLUSIVE = 0x2;
    /** The largest count a request may ask for. */
    public static final int MAX_COUNT = 0xFFFF;

    @Override
    public KeyScanRequestFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * @throws ProtocolException {@link ErrorCode#MALFORMED}, {@link ErrorCode#TRUNCATED}, {@link ErrorCode#BAD_LENGTH}
     *                           or a header error.
     */
    @Override
    public KeyScanRequestFlyweight validate()
    {
        super.validate();
        final long bodyLength = checkTypeAndFixedBody(MessageType.KEY_SCAN_REQUEST, "key scan request",
            FIXED_BODY_LENGTH);
        if (FIXED_BODY_LENGTH + (long)fromLength() + toLength() + matchLength() != bodyLength)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, "key scan request: keys and match of " +
                (fromLength() + toLength() + matchLength()) + " bytes in a body of " + bodyLength);
        }
        if (lastSlot() < firstSlot() || lastSlot() >= ProtocolLimits.HASH_SLOT_COUNT || count() == 0)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "key scan request: hash slots " + firstSlot() + ".." +
                lastSlot() + " (at most " + (ProtocolLimits.HASH_SLOT_COUNT - 1) + "), count " + count() +
                " (at least 1)");
        }
        return this;
    }

    public int firstSlot()
    {
        return buffer.getShort(offset + FIRST_SLOT_OFFSET, ORDER) & 0xFFFF;
    }

    public int lastSlot()
    {
        return buffer.getShort(offset + LAST_SLOT_OFFSET, ORDER) & 0xFFFF;
    }

    public int count()
    {
        return buffer.getShort(offset + COUNT_OFFSET, ORDER) & 0xFFFF;
    }

    public int scanFlags()
    {
        return buffer.getShort(offset + SCAN_FLAGS_OFFSET, ORDER) & 0xFFFF;
    }

    public boolean withValues()
    {
        return (scanFlags() & WITH_VALUES) != 0;
    }

    public boolean fromInclusive()
    {
        return (scanFlags() & FROM_INCLUSIVE) != 0;
    }

    public int fromLength()
    {
        return buffer.getShort(offset + FROM_LENGTH_OFFSET, ORDER) & 0xFFFF;
    }

    public int toLength()
    {
        return buffer.getShort(offset + TO_LENGTH_OFFSET, ORDER) & 0xFFFF;
    }

    public int matchLength()
    {
        return buffer.getShort(offset + MATCH_LENGTH_OFFSET, ORDER) & 0xFFFF;
    }

    public int fromIndex()
    {
        return offset + FROM_OFFSET;
    }

    public int toIndex()
    {
        return fromIndex() + fromLength();
    }

    public int matchIndex()
    {
        return toIndex() + toLength();
    }

    /**
     * The body of a request (everything after the header), for a client to keep until it sends: the first two bytes
     * are the first hash slot (u16 little-endian), which the client routes by.
     *
     * @throws IllegalArgumentException when a field is out of range.
     */
    public static byte[] body(final int firstSlot, final int lastSlot, final int count, final int scanFlags,
        final byte[] from, final byte[] to, final byte[] match)
    {
        if (firstSlot < 0 || lastSlot < firstSlot || lastSlot >= ProtocolLimits.HASH_SLOT_COUNT)
        {
            throw new IllegalArgumentException("hash slots " + firstSlot + ".." + lastSlot);
        }
        if (count < 1 || count > MAX_COUNT)
        {
            throw new IllegalArgumentException("count " + count + " outside 1.." + MAX_COUNT);
        }
        for (final byte[] part : new byte[][] {from, to, match})
        {
            if (part.length > 0xFFFF)
            {
                throw new IllegalArgumentException("a key or pattern of " + part.length + " bytes (at most 65535)");
            }
        }
        final byte[] body = new byte[FIXED_BODY_LENGTH + from.length + to.length + match.length];
        final UnsafeBuffer b = new UnsafeBuffer(body);
        b.putShort(0, (short)firstSlot, ORDER);
        b.putShort(2, (short)lastSlot, ORDER);
        b.putShort(4, (short)count, ORDER);
        b.putShort(6, (short)scanFlags, ORDER);
        b.putShort(8, (short)from.length, ORDER);
        b.putShort(10, (short)to.length, ORDER);
        b.putShort(12, (short)match.length, ORDER);
        b.putBytes(FIXED_BODY_LENGTH, from);
        b.putBytes(FIXED_BODY_LENGTH + from.length, to);
        b.putBytes(FIXED_BODY_LENGTH + from.length + to.length, match);
        return body;
    }

    /** The first hash slot of a {@link #body}. */
    public static int firstSlotOfBody(final DirectBuffer body, final int index)
    {
        return body.getShort(index, ORDER) & 0xFFFF;
    }

    /** Write a whole request: the header, then {@code body} (from {@link #body}). */
    public KeyScanRequestFlyweight request(final long correlationId, final DirectBuffer body, final int bodyIndex,
        final int bodyLength)
    {
        header(MessageType.KEY_SCAN_REQUEST, correlationId);
        bodyLength(bodyLength);
        final MutableDirectBuffer b = mutable();
        b.putBytes(offset + HEADER_LENGTH, body, bodyIndex, bodyLength);
        return this;
    }
}
