package io.rdmakv.server.replication;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A backup's answer to a RECONCILE query, the value of its RESPONSE OK: the last sequence it applied from the previous
 * primary and the keys (in the range) of the writes it applied from it past the asker's last one, or "not covered"
 * (its window does not reach back that far, or holds another incarnation of that primary).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |          Last sequence applied from the previous primary (u64) |  0
 *  +---------------+---------------+-------------------------------+
 *  |  Covered (u8) |   Reserved    |         Reserved              |  8
 *  +---------------+---------------+-------------------------------+
 *  |                     Key count N (u32)                         |  12
 *  +-------------------------------+-------------------------------+
 *  |   Key length (u16, >= 1)      |  Key bytes ...               ...  16, N times
 *  +-------------------------------+-------------------------------+
 *  all fields little-endian; not covered: N = 0
 * </pre>
 */
final class ReconcileAnswer
{
    static final int FIXED_LENGTH = 16;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    final long lastSequence;
    final boolean covered;
    final List<ByteBuffer> keys;

    private ReconcileAnswer(final long lastSequence, final boolean covered, final List<ByteBuffer> keys)
    {
        this.lastSequence = lastSequence;
        this.covered = covered;
        this.keys = keys;
    }

    /**
     * Encode the answer of {@code window} (null: nothing held from that primary) into {@code into} at {@code offset};
     * returns its length. Not covered when the keys would not fit {@code capacity}.
     *
     * @param incarnation the asker's incarnation of the previous primary (0: it knows none).
     * @param after       the last sequence the asker applied from it.
     */
    static int encode(final SenderWindow window, final long incarnation, final long after, final int firstSlot,
        final int lastSlot, final MutableDirectBuffer into, final int offset, final int capacity)
    {
        if (window == null || window.incarnation() == 0)
        {
            return header(into, offset, 0, true, 0); // nothing from that primary here: nothing the asker lacks
        }
        if (incarnation != 0 && incarnation != window.incarnation() || !window.covers(incarnation == 0 ? 0 : after))
        {
            return header(into, offset, window.lastSequence(), false, 0);
        }
        final int[] at = {offset + FIXED_LENGTH, 0};
        final boolean[] fits = {true};
        window.forEachAfter(incarnation == 0 ? 0 : after, firstSlot, lastSlot, (buffer, index, length, w, s) ->
        {
            if (!fits[0] || at[0] + 2 + length - offset > capacity)
            {
                fits[0] = false;
                return;
            }
            into.putShort(at[0], (short)length, ORDER);
            into.putBytes(at[0] + 2, buffer, index, length);
            at[0] += 2 + length;
            at[1]++;
        });
        if (!fits[0])
        {
            return header(into, offset, window.lastSequence(), false, 0);
        }
        header(into, offset, window.lastSequence(), true, at[1]);
        return at[0] - offset;
    }

    private static int header(final MutableDirectBuffer into, final int offset, final long lastSequence,
        final boolean covered, final int count)
    {
        into.putLong(offset, lastSequence, ORDER);
        into.putByte(offset + 8, (byte)(covered ? 1 : 0));
        into.putByte(offset + 9, (byte)0);
        into.putShort(offset + 10, (short)0, ORDER);
        into.putInt(offset + 12, count, ORDER);
        return FIXED_LENGTH;
    }

    /**
     * Decode an answer of {@code length} bytes at {@code offset}.
     *
     * @throws IllegalArgumentException when the lengths disagree or a value is out of range.
     */
    static ReconcileAnswer decode(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < FIXED_LENGTH)
        {
            throw new IllegalArgumentException("reconcile answer of " + length + " bytes");
        }
        final long lastSequence = buffer.getLong(offset, ORDER);
        final int coveredByte = buffer.getByte(offset + 8);
        final long count = buffer.getInt(offset + 12, ORDER) & 0xFFFF_FFFFL;
        if (lastSequence < 0 || coveredByte < 0 || coveredByte > 1 || count > (length - FIXED_LENGTH) / 3 ||
            coveredByte == 0 && count != 0)
        {
            throw new IllegalArgumentException("reconcile answer: sequence " + lastSequence + ", covered " +
                coveredByte + ", " + count + " keys in " + length + " bytes");
        }
        final List<ByteBuffer> keys = new ArrayList<>((int)count);
        int at = offset + FIXED_LENGTH;
        final int end = offset + length;
        for (long i = 0; i < count; i++)
        {
            final int keyLength = at + 2 <= end ? buffer.getShort(at, ORDER) & 0xFFFF : -1;
            if (keyLength < 1 || at + 2 + keyLength > end)
            {
                throw new IllegalArgumentException("reconcile answer: key " + i + " of length " + keyLength +
                    " past the end");
            }
            final byte[] key = new byte[keyLength];
            buffer.getBytes(at + 2, key);
            keys.add(ByteBuffer.wrap(key));
            at += 2 + keyLength;
        }
        if (at != end)
        {
            throw new IllegalArgumentException("reconcile answer: " + (end - at) + " bytes after the keys");
        }
        return new ReconcileAnswer(lastSequence, coveredByte == 1, keys);
    }
}
