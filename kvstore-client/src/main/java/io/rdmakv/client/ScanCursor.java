package io.rdmakv.client;

import io.rdmakv.protocol.ProtocolLimits;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Where a key scan ({@link KvClient#scan}) goes on: a hash slot and the last key of it already examined. Keys of a hash
 * slot are kept in byte order on its node, so the scan resumes right after that key at whichever node serves the hash
 * slot then: a slot range that moved, or failed over, between two calls is read on at its new primary, and every key
 * present from the scan's start to its end is returned at least once (Redis's SCAN guarantee; a key written or
 * deleted during the scan may or may not be, and a key may come twice only if it is deleted and written again).
 *
 * <p>Its text ({@link #toString()}, {@link #parse}) is {@code 0} at the start and again once finished, as Redis's
 * cursor, else {@code <hash slot>-<last key in hex>}. Immutable.
 */
public final class ScanCursor
{
    /** The start of a scan. */
    public static final ScanCursor START = new ScanCursor(0, new byte[0]);
    /** The end of a scan: every hash slot has been read. */
    public static final ScanCursor FINISHED = new ScanCursor(ProtocolLimits.HASH_SLOT_COUNT, new byte[0]);

    private final int hashSlot;
    private final byte[] after;

    private ScanCursor(final int hashSlot, final byte[] after)
    {
        this.hashSlot = hashSlot;
        this.after = after;
    }

    /**
     * A cursor at hash slot {@code hashSlot}, after key {@code after} (empty: before its first key).
     *
     * @throws IllegalArgumentException for a hash slot outside 0..16384 (16384: finished).
     */
    public static ScanCursor of(final int hashSlot, final byte[] after)
    {
        if (hashSlot < 0 || hashSlot > ProtocolLimits.HASH_SLOT_COUNT)
        {
            throw new IllegalArgumentException("hash slot " + hashSlot + " outside 0.." +
                ProtocolLimits.HASH_SLOT_COUNT);
        }
        if (hashSlot == ProtocolLimits.HASH_SLOT_COUNT)
        {
            return FINISHED;
        }
        return new ScanCursor(hashSlot, Objects.requireNonNull(after, "after").clone());
    }

    /**
     * The cursor of a text from {@link #toString()}; {@code 0} is the start.
     *
     * @throws IllegalArgumentException when the text is not a cursor.
     */
    public static ScanCursor parse(final String text)
    {
        Objects.requireNonNull(text, "cursor");
        if (text.equals("0"))
        {
            return START;
        }
        final int dash = text.indexOf('-');
        try
        {
            if (dash <= 0)
            {
                throw new IllegalArgumentException("no '-'");
            }
            final int hashSlot = Integer.parseInt(text.substring(0, dash));
            if (hashSlot >= ProtocolLimits.HASH_SLOT_COUNT)
            {
                throw new IllegalArgumentException("hash slot " + hashSlot);
            }
            return of(hashSlot, HexFormat.of().parseHex(text.substring(dash + 1)));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("not a scan cursor: '" + text + "' (0, or <hash slot>-<hex key>): " +
                ex.getMessage(), ex);
        }
    }

    /** Whether the scan is over (nothing left to read). */
    public boolean isFinished()
    {
        return hashSlot >= ProtocolLimits.HASH_SLOT_COUNT;
    }

    /** The hash slot the scan goes on in (16384 when finished). */
    public int hashSlot()
    {
        return hashSlot;
    }

    /** The last key of {@link #hashSlot()} already examined (empty: none). A copy. */
    public byte[] after()
    {
        return after.clone();
    }

    byte[] afterBytes()
    {
        return after;
    }

    @Override
    public String toString()
    {
        if (isFinished() || hashSlot == 0 && after.length == 0)
        {
            return "0";
        }
        return hashSlot + "-" + HexFormat.of().formatHex(after);
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof ScanCursor c && c.hashSlot == hashSlot && Arrays.equals(c.after, after);
    }

    @Override
    public int hashCode()
    {
        return 31 * hashSlot + Arrays.hashCode(after);
    }
}
