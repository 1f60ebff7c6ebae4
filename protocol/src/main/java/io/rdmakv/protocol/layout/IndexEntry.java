package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;

/**
 * One index slot: a single u64 that the server publishes with one ordered 8-byte store, so a reader sees either the
 * old or the new slot, never a mix. {@code 0} is an empty slot (a real slot always has a non-zero fingerprint).
 *
 * <pre>
 *   6                   5                   4                   3                   2                   1
 *   3 2 1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0
 *  +-------------------------------+-----------------------------+-----------------------------------------------------------------+
 *  |   Fingerprint (16, never 0)   | Extent length (15) x 64 B   |              Extent offset from pool start (33) x 64 B          |
 *  +-------------------------------+-----------------------------+-----------------------------------------------------------------+
 *   bits 63..48                     bits 47..33                   bits 32..0
 * </pre>
 *
 * The offset reaches 2^33 x 64 B = 512 GiB of pool; the length reaches (2^15 - 1) x 64 B = 2 MiB - 64 B.
 * Helpers take and return byte counts; the 64-byte units are an encoding detail.
 */
public final class IndexEntry
{
    public static final long EMPTY = 0L;

    public static final int FINGERPRINT_SHIFT = 48;
    public static final int LENGTH_SHIFT = 33;
    public static final long OFFSET_MASK = (1L << 33) - 1;
    public static final long LENGTH_MASK = (1L << 15) - 1;
    public static final int FINGERPRINT_MASK = 0xFFFF;

    /** Largest extent offset in bytes a slot can express (the extent's first byte). */
    public static final long MAX_EXTENT_OFFSET = OFFSET_MASK * ProtocolLimits.EXTENT_ALIGNMENT;

    /** Largest extent length in bytes a slot can express. */
    public static final int MAX_EXTENT_LENGTH = ProtocolLimits.MAX_EXTENT_LENGTH;

    private static final int UNIT_SHIFT = 6;

    private IndexEntry()
    {
    }

    /**
     * Encode a slot.
     *
     * @param fingerprint 1..65535 (see {@link KeyHash#fingerprint(long)}).
     * @param extentOffset byte offset of the extent from the pool start, a multiple of 64.
     * @param extentLength byte length of the extent, a positive multiple of 64 up to {@link #MAX_EXTENT_LENGTH}.
     * @throws ProtocolException {@link ErrorCode#BAD_SLOT} if any field is out of range or misaligned.
     */
    public static long encode(final int fingerprint, final long extentOffset, final int extentLength)
    {
        if (fingerprint <= 0 || fingerprint > FINGERPRINT_MASK)
        {
            throw new ProtocolException(ErrorCode.BAD_SLOT, "fingerprint must be 1..65535, got " + fingerprint);
        }
        if (extentOffset < 0 || extentOffset > MAX_EXTENT_OFFSET || (extentOffset & 63) != 0)
        {
            throw new ProtocolException(ErrorCode.BAD_SLOT,
                "extent offset must be a multiple of 64 in [0, " + MAX_EXTENT_OFFSET + "], got " + extentOffset);
        }
        if (extentLength <= 0 || extentLength > MAX_EXTENT_LENGTH || (extentLength & 63) != 0)
        {
            throw new ProtocolException(ErrorCode.BAD_SLOT,
                "extent length must be a multiple of 64 in [64, " + MAX_EXTENT_LENGTH + "], got " + extentLength);
        }
        return ((long)fingerprint << FINGERPRINT_SHIFT) |
            ((long)(extentLength >>> UNIT_SHIFT) << LENGTH_SHIFT) |
            (extentOffset >>> UNIT_SHIFT);
    }

    public static boolean isEmpty(final long entry)
    {
        return entry == EMPTY;
    }

    /** The 16-bit fingerprint; 0 only for an empty slot. */
    public static int fingerprint(final long entry)
    {
        return (int)(entry >>> FINGERPRINT_SHIFT) & FINGERPRINT_MASK;
    }

    /** The extent's byte offset from the pool start. */
    public static long extentOffset(final long entry)
    {
        return (entry & OFFSET_MASK) << UNIT_SHIFT;
    }

    /** The extent's length in bytes. */
    public static int extentLength(final long entry)
    {
        return (int)((entry >>> LENGTH_SHIFT) & LENGTH_MASK) << UNIT_SHIFT;
    }

    /**
     * Check a slot read from remote memory against the pool geometry before following it: non-empty, non-zero
     * length, and the extent wholly inside the extents range. Never throws.
     */
    public static boolean isValid(final long entry, final PoolGeometry geometry)
    {
        if (entry == EMPTY || fingerprint(entry) == 0)
        {
            return false;
        }
        final long offset = extentOffset(entry);
        final int length = extentLength(entry);
        return length > 0 && geometry.containsExtent(offset, length);
    }

    public static String toString(final long entry)
    {
        return entry == EMPTY ? "Slot{empty}" :
            "Slot{fp=0x" + Integer.toHexString(fingerprint(entry)) + ", offset=" + extentOffset(entry) +
            ", length=" + extentLength(entry) + '}';
    }
}
