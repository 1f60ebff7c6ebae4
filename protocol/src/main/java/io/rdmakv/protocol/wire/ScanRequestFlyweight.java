package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * {@link MessageType#SCAN_REQUEST}: one page of a slot range as of one point in time (backup). The first request
 * (snapshot id 0) opens a snapshot of the node's store; every answer carries its id in the RESPONSE's version field,
 * and later requests name it and the last store key they received, so all pages come from the same snapshot. A page
 * with no entry is the last; the node then releases the snapshot (and does after a minute without a request).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Message header (16 B, type SCAN)             ...  0
 *  +-------------------------------+-------------------------------+
 *  |       First slot (u16)        |        Last slot (u16)        |  16
 *  +-------------------------------+-------------------------------+
 *  |                    Page bytes at most (u32)                   |  20
 *  +---------------------------------------------------------------+
 *  |                    Snapshot id (u64, 0 = open one)            |  24
 *  |                                                               |
 *  +-------------------------------+-------------------------------+
 *  |     Cursor length C (u16)     |         Reserved (u16)        |  32
 *  +-------------------------------+-------------------------------+
 *  |      Cursor: the last store key received (C bytes, 0 = start)...  36
 *  +---------------------------------------------------------------+
 *  body length = 20 + C
 *
 *  RESPONSE OK value (the page): entries, each | store key length (u16) | value length (u32) | store key | value |
 *  (a store key is the slot, u16 big-endian, then the client key)
 * </pre>
 */
public final class ScanRequestFlyweight extends MessageHeaderFlyweight
{
    public static final int FIRST_SLOT_OFFSET = HEADER_LENGTH;
    public static final int LAST_SLOT_OFFSET = HEADER_LENGTH + 2;
    public static final int PAGE_BYTES_OFFSET = HEADER_LENGTH + 4;
    public static final int SNAPSHOT_OFFSET = HEADER_LENGTH + 8;
    public static final int CURSOR_LENGTH_OFFSET = HEADER_LENGTH + 16;
    public static final int CURSOR_OFFSET = HEADER_LENGTH + 20;
    public static final int FIXED_BODY_LENGTH = 20;
    /** Bytes of an entry's header in a page. */
    public static final int ENTRY_HEADER_LENGTH = 6;

    @Override
    public ScanRequestFlyweight header(final MessageType type, final long correlationId)
    {
        super.header(type, correlationId);
        return this;
    }

    @Override
    public ScanRequestFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * @throws ProtocolException {@link ErrorCode#MALFORMED}, {@link ErrorCode#TRUNCATED}, {@link ErrorCode#BAD_LENGTH}
     *                           or a header error.
     */
    @Override
    public ScanRequestFlyweight validate()
    {
        super.validate();
        final long bodyLength = checkTypeAndFixedBody(MessageType.SCAN_REQUEST, "scan request", FIXED_BODY_LENGTH);
        if (FIXED_BODY_LENGTH + cursorLength() != bodyLength || lastSlot() < firstSlot())
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, "scan request: cursor of " + cursorLength() +
                " bytes in a body of " + bodyLength + ", slots " + firstSlot() + ".." + lastSlot());
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

    public int pageBytes()
    {
        return buffer.getInt(offset + PAGE_BYTES_OFFSET, ORDER);
    }

    public long snapshotId()
    {
        return buffer.getLong(offset + SNAPSHOT_OFFSET, ORDER);
    }

    public int cursorLength()
    {
        return buffer.getShort(offset + CURSOR_LENGTH_OFFSET, ORDER) & 0xFFFF;
    }

    public int cursorIndex()
    {
        return offset + CURSOR_OFFSET;
    }

    /** Set every field after the header and the body length. */
    public ScanRequestFlyweight scan(final int firstSlot, final int lastSlot, final int pageBytes,
        final long snapshotId, final byte[] cursor)
    {
        bodyLength(FIXED_BODY_LENGTH + cursor.length);
        final MutableDirectBuffer b = mutable();
        b.putShort(offset + FIRST_SLOT_OFFSET, (short)firstSlot, ORDER);
        b.putShort(offset + LAST_SLOT_OFFSET, (short)lastSlot, ORDER);
        b.putInt(offset + PAGE_BYTES_OFFSET, pageBytes, ORDER);
        b.putLong(offset + SNAPSHOT_OFFSET, snapshotId, ORDER);
        b.putShort(offset + CURSOR_LENGTH_OFFSET, (short)cursor.length, ORDER);
        b.putShort(offset + CURSOR_LENGTH_OFFSET + 2, (short)0, ORDER);
        b.putBytes(offset + CURSOR_OFFSET, cursor);
        return this;
    }
}
