package io.rdmakv.server.replication;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The last writes one sender (a primary, in one incarnation) replicated to this node, newest last: a ring of
 * (replication sequence, slot, key), bounded in entries and in key bytes, all allocated at construction (recording a
 * write allocates nothing). When full, the oldest entries go; the window then no longer covers sequences up to the
 * highest evicted one.
 *
 * <pre>
 *   entries (ring, head = oldest)      sequence | slot | key offset | key length
 *   keys    (byte ring)                [ .. key of head .. key .. key | free ... ]   a key that does not fit
 *                                      before the end starts again at 0
 *   covers(after)  = no entry with a sequence > after was evicted (evictedUpTo <= after)
 * </pre>
 * Request thread only.
 */
final class SenderWindow
{
    private final long[] sequences;
    private final int[] slots;
    private final int[] keyOffsets;
    private final int[] keyLengths;
    private final MutableDirectBuffer keys;
    private long incarnation;
    private long lastSequence;
    private long evictedUpTo;
    private int head;
    private int count;
    private int keyTail;

    SenderWindow(final int maxEntries, final int keyBytes)
    {
        sequences = new long[maxEntries];
        slots = new int[maxEntries];
        keyOffsets = new int[maxEntries];
        keyLengths = new int[maxEntries];
        keys = new UnsafeBuffer(new byte[keyBytes]);
    }

    /** The incarnation the window holds writes of (0: none yet). */
    long incarnation()
    {
        return incarnation;
    }

    /** The highest sequence recorded from {@link #incarnation()} (0: none). */
    long lastSequence()
    {
        return lastSequence;
    }

    /** Whether every write of {@link #incarnation()} with a sequence above {@code after} is still in the window. */
    boolean covers(final long after)
    {
        return evictedUpTo <= after;
    }

    int size()
    {
        return count;
    }

    /** Record a write applied from {@code senderIncarnation}; another incarnation than the held one starts afresh. */
    void record(final long senderIncarnation, final long sequence, final int slot, final DirectBuffer key,
        final int keyIndex, final int keyLength)
    {
        if (senderIncarnation != incarnation)
        {
            incarnation = senderIncarnation;
            lastSequence = 0;
            evictedUpTo = 0;
            head = 0;
            count = 0;
            keyTail = 0;
        }
        if (keyLength > keys.capacity())
        {
            evictAll(sequence); // cannot hold it: the window stops covering what came before
            lastSequence = Math.max(lastSequence, sequence);
            return;
        }
        if (count == sequences.length)
        {
            evictOldest();
        }
        final int at = keyPosition(keyLength);
        final int entry = (head + count) % sequences.length;
        sequences[entry] = sequence;
        slots[entry] = slot;
        keyOffsets[entry] = at;
        keyLengths[entry] = keyLength;
        keys.putBytes(at, key, keyIndex, keyLength);
        keyTail = at + keyLength;
        count++;
        lastSequence = Math.max(lastSequence, sequence);
    }

    /** Where a key of {@code length} bytes goes, evicting the oldest entries until it fits. */
    private int keyPosition(final int length)
    {
        while (count > 0)
        {
            final int oldest = keyOffsets[head];
            if (oldest < keyTail)
            {
                if (keyTail + length <= keys.capacity())
                {
                    return keyTail;
                }
                if (length <= oldest)
                {
                    return 0;
                }
            }
            else if (keyTail + length <= oldest)
            {
                return keyTail;
            }
            evictOldest();
        }
        return 0;
    }

    private void evictOldest()
    {
        evictedUpTo = Math.max(evictedUpTo, sequences[head]);
        head = (head + 1) % sequences.length;
        count--;
    }

    private void evictAll(final long upTo)
    {
        while (count > 0)
        {
            evictOldest();
        }
        evictedUpTo = Math.max(evictedUpTo, upTo);
        keyTail = 0;
    }

    /** What {@link #forEachAfter} hands each entry to. */
    interface KeyVisitor
    {
        void visit(DirectBuffer buffer, int index, int length);
    }

    /** Visit the key of every entry with a sequence above {@code after} in slots {@code firstSlot..lastSlot}. */
    void forEachAfter(final long after, final int firstSlot, final int lastSlot, final KeyVisitor visitor)
    {
        for (int i = 0; i < count; i++)
        {
            final int entry = (head + i) % sequences.length;
            if (sequences[entry] > after && slots[entry] >= firstSlot && slots[entry] <= lastSlot)
            {
                visitor.visit(keys, keyOffsets[entry], keyLengths[entry]);
            }
        }
    }
}
