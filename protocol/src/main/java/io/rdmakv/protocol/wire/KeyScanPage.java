package io.rdmakv.protocol.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The value of an OK answer to a {@link KeyScanRequestFlyweight}: where to resume, then the entries in store order.
 *
 * <pre>
 *   +-------------------------------+-------------------------------+
 *   |   Next slot (u16, 0..16384)   |       Page flags (u16)        |  0
 *   +-------------------------------+-------------------------------+
 *   |   Resume key length R (u16)   |     Entry count (u16)         |  4
 *   +-------------------------------+-------------------------------+
 *   |   Resume key (R bytes)                                       ...  8
 *   +---------------------------------------------------------------+
 *   entries: | key length (u16) | value length (u32, WITH_VALUES only) | key | value |
 *   all little-endian
 * </pre>
 *
 * The resume point: every key of the request's hash slots before hash slot {@code next}, and of hash slot
 * {@code next} up to and including the resume key, was examined (an empty resume key: none of hash slot
 * {@code next} yet). A scan goes on with a request from there, to whichever node owns hash slot {@code next} then.
 * {@link #END}: the request's interval holds no key after this page (a range read is complete); a scan of every
 * hash slot is complete when {@code next} is 16384.
 */
public final class KeyScanPage
{
    public static final int HEADER_LENGTH = 8;
    /** Page flag: nothing left in the request's interval. */
    public static final int END = 0x1;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private KeyScanPage()
    {
    }

    /** Write a page's header at {@code page[offset]}, with the resume key; entries follow at the returned offset. */
    public static int writeHeader(final MutableDirectBuffer page, final int offset, final int nextSlot,
        final int pageFlags, final int entryCount, final byte[] resumeKey, final int resumeKeyLength)
    {
        page.putShort(offset, (short)nextSlot, ORDER);
        page.putShort(offset + 2, (short)pageFlags, ORDER);
        page.putShort(offset + 4, (short)resumeKeyLength, ORDER);
        page.putShort(offset + 6, (short)entryCount, ORDER);
        page.putBytes(offset + HEADER_LENGTH, resumeKey, 0, resumeKeyLength);
        return offset + HEADER_LENGTH + resumeKeyLength;
    }

    /** Bytes of an entry's header. */
    public static int entryHeaderLength(final boolean withValues)
    {
        return withValues ? 6 : 2;
    }

    /** Write one entry at {@code page[offset]}; returns the offset after it. {@code value} null: keys only. */
    public static int writeEntry(final MutableDirectBuffer page, final int offset, final byte[] key, final int keyIndex,
        final int keyLength, final byte[] value)
    {
        page.putShort(offset, (short)keyLength, ORDER);
        int at = offset + 2;
        if (value != null)
        {
            page.putInt(at, value.length, ORDER);
            at += 4;
        }
        page.putBytes(at, key, keyIndex, keyLength);
        at += keyLength;
        if (value != null)
        {
            page.putBytes(at, value);
            at += value.length;
        }
        return at;
    }

    /** A page read back (client side): copies of its keys and values. */
    public record Decoded(int nextSlot, boolean end, byte[] resumeKey, List<byte[]> keys, List<byte[]> values)
    {
    }

    /**
     * Read a page of {@code length} bytes.
     *
     * @param withValues whether the request asked for values.
     * @throws IllegalArgumentException when the page is malformed.
     */
    public static Decoded read(final DirectBuffer page, final int offset, final int length, final boolean withValues)
    {
        if (length < HEADER_LENGTH)
        {
            throw new IllegalArgumentException("key scan page of " + length + " bytes");
        }
        final int nextSlot = page.getShort(offset, ORDER) & 0xFFFF;
        final int flags = page.getShort(offset + 2, ORDER) & 0xFFFF;
        final int resumeLength = page.getShort(offset + 4, ORDER) & 0xFFFF;
        final int count = page.getShort(offset + 6, ORDER) & 0xFFFF;
        final int limit = offset + length;
        int at = offset + HEADER_LENGTH;
        check(at + resumeLength <= limit);
        final byte[] resumeKey = new byte[resumeLength];
        page.getBytes(at, resumeKey);
        at += resumeLength;
        final List<byte[]> keys = new ArrayList<>(count);
        final List<byte[]> values = withValues ? new ArrayList<>(count) : null;
        for (int i = 0; i < count; i++)
        {
            check(at + entryHeaderLength(withValues) <= limit);
            final int keyLength = page.getShort(at, ORDER) & 0xFFFF;
            final int valueLength = withValues ? page.getInt(at + 2, ORDER) : 0;
            at += entryHeaderLength(withValues);
            check(valueLength >= 0 && (long)at + keyLength + valueLength <= limit);
            final byte[] key = new byte[keyLength];
            page.getBytes(at, key);
            keys.add(key);
            at += keyLength;
            if (withValues)
            {
                final byte[] value = new byte[valueLength];
                page.getBytes(at, value);
                values.add(value);
                at += valueLength;
            }
        }
        check(at == limit);
        return new Decoded(nextSlot, (flags & END) != 0, resumeKey, keys, values);
    }

    private static void check(final boolean ok)
    {
        if (!ok)
        {
            throw new IllegalArgumentException("malformed key scan page");
        }
    }
}
