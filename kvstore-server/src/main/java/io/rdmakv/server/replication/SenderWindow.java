package io.rdmakv.server.replication;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongLongConsumer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The last writes one sender (a primary, in one incarnation) replicated to this node, newest last: a ring of
 * (replication sequence, slot, client write id, key), bounded in entries and in key bytes, all allocated at construction (recording a
 * write allocates nothing). When full, the oldest entries go; the window then no longer covers sequences up to the
 * highest evicted one.
 *
 * <pre>
 *   entries (ring, head = oldest)      sequence | slot | writer | write sequence | key offset | key length
 *                                      (writer 0: the write carried no client write id, or it was taken)
 *   keys    (byte ring)                [ .. key of head .. key .. key | free ... ]   a key that does not fit
 *                                      before the end starts again at 0
 *   covers(after)  = no entry with a sequence > after was evicted (evictedUpTo <= after)
 * </pre>
 * Request thread only.
 */
final class SenderWindow
{
    private final long[] sequences;
    private final int[] hashSlots;
    private final long[] writers;
    private final long[] writeSequences;
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
        hashSlots = new int[maxEntries];
        writers = new long[maxEntries];
        writeSequences = new long[maxEntries];
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

    /**
     * Record a write applied from {@code senderIncarnation}; another incarnation than the held one starts afresh.
     *
     * @param writer        the client write id's writer the write carried (0: none), with its {@code writeSequence}.
     */
    void record(final long senderIncarnation, final long sequence, final int hashSlot, final long writer,
        final long writeSequence, final DirectBuffer key, final int keyIndex, final int keyLength)
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
        hashSlots[entry] = hashSlot;
        writers[entry] = writer;
        writeSequences[entry] = writeSequence;
        keyOffsets[entry] = at;
        keyLengths[entry] = keyLength;
        keys.putBytes(at, key, keyIndex, keyLength);
        keyTail = at + keyLength;
        count++;
        lastSequence = Math.max(lastSequence, sequence);
    }

    /**
     * Start afresh at {@code sequence} of {@code senderIncarnation}, known applied though its entries are gone (a
     * restart): nothing at or before it is covered.
     */
    void recovered(final long senderIncarnation, final long sequence)
    {
        incarnation = senderIncarnation;
        head = 0;
        count = 0;
        keyTail = 0;
        lastSequence = sequence;
        evictedUpTo = sequence;
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
        /** @param writer the entry's client write id's writer (0: none), with its {@code writeSequence}. */
        void visit(DirectBuffer buffer, int index, int length, long writer, long writeSequence);
    }

    /** Visit the key of every entry with a sequence above {@code after} in slots {@code firstSlot..lastSlot}. */
    void forEachAfter(final long after, final int firstSlot, final int lastSlot, final KeyVisitor visitor)
    {
        for (int i = 0; i < count; i++)
        {
            final int entry = (head + i) % sequences.length;
            if (sequences[entry] > after && hashSlots[entry] >= firstSlot && hashSlots[entry] <= lastSlot)
            {
                visitor.visit(keys, keyOffsets[entry], keyLengths[entry], writers[entry], writeSequences[entry]);
            }
        }
    }

    /**
     * Hand {@code taker} the client write ids of the entries with a sequence above {@code after} in slots {@code
     * firstSlot..lastSlot} whose key is the given one, and clear them in the window (each is taken once): a reconcile
     * undid those writes here.
     */
    void takeWriteIds(final long after, final int firstSlot, final int lastSlot, final DirectBuffer key,
        final int keyIndex, final int keyLength, final LongLongConsumer taker)
    {
        for (int i = 0; i < count; i++)
        {
            final int entry = (head + i) % sequences.length;
            if (sequences[entry] > after && writers[entry] != 0 && hashSlots[entry] >= firstSlot &&
                hashSlots[entry] <= lastSlot && sameKey(keyOffsets[entry], keyLengths[entry], key, keyIndex, keyLength))
            {
                taker.accept(writers[entry], writeSequences[entry]);
                writers[entry] = 0;
            }
        }
    }

    private boolean sameKey(final int at, final int length, final DirectBuffer key, final int keyIndex,
        final int keyLength)
    {
        if (length != keyLength)
        {
            return false;
        }
        for (int i = 0; i < length; i++)
        {
            if (keys.getByte(at + i) != key.getByte(keyIndex + i))
            {
                return false;
            }
        }
        return true;
    }
}
