package io.rdmakv.server.replication;

import io.rdmakv.server.handler.LocalWrites;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.LongLongConsumer;

import java.util.ArrayList;
import java.util.List;

/**
 * What this node, as a replica, applied from each sender: one {@link SenderWindow} per sender node (its latest
 * incarnation), filled by {@link ReplicaGate} and read by a new primary's reconcile ({@link Reconciles}) and by the
 * answer to a RECONCILE query. A window is allocated once per sender node; recording allocates nothing. The queries
 * this node answered are kept (per asker and range), so that the asker's fix-ups can take back the write ids of the
 * writes they undo ({@link #takeRevertedWriteIds}).
 * Request thread only (the replica writes are handed over once, at start).
 */
final class ReplicaHistory
{
    /** Entries and key bytes of one sender's window (about 840 KiB per sender node). */
    static final int MAX_ENTRIES = 16_384;
    static final int KEY_BYTES = 512 * 1024;

    private final int maxEntries;
    private final int keyBytes;
    private final Int2ObjectHashMap<SenderWindow> windows = new Int2ObjectHashMap<>();
    /** Per asker (a new primary): the RECONCILE queries this node answered, the latest per range. */
    private final Int2ObjectHashMap<List<Answered>> answered = new Int2ObjectHashMap<>();
    /** The replica side's own local write path (flushed, and waited for, before a reconcile reads values). */
    private final LocalWrites replicaWrites;

    /** @param replicaWrites the replica side's own local write path. */
    ReplicaHistory(final int maxEntries, final int keyBytes, final LocalWrites replicaWrites)
    {
        this.maxEntries = maxEntries;
        this.keyBytes = keyBytes;
        this.replicaWrites = replicaWrites;
    }

    /** A RECONCILE query this node answered: the asker's fix-ups undo what it applied from {@code previous} past it. */
    private record Answered(int firstSlot, int lastSlot, int previous, long incarnation, long after)
    {
    }

    void record(final int sender, final long incarnation, final long sequence, final int hashSlot, final long writer,
        final long writeSequence, final DirectBuffer key, final int keyIndex, final int keyLength)
    {
        SenderWindow window = windows.get(sender);
        if (window == null)
        {
            window = new SenderWindow(maxEntries, keyBytes);
            windows.put(sender, window);
        }
        window.record(incarnation, sequence, hashSlot, writer, writeSequence, key, keyIndex, keyLength);
    }

    /**
     * Found at start: this node applied {@code sender}'s writes up to {@code sequence} of {@code incarnation} before it
     * stopped. Its window starts there, empty: it covers only what comes after, so a new primary asking about an
     * earlier point learns that this node cannot say what it applied (and asks it out of the in-sync set) instead of
     * hearing "nothing".
     */
    void recovered(final int sender, final long incarnation, final long sequence)
    {
        SenderWindow window = windows.get(sender);
        if (window == null)
        {
            window = new SenderWindow(maxEntries, keyBytes);
            windows.put(sender, window);
        }
        window.recovered(incarnation, sequence);
    }

    /**
     * This node answered {@code asker}'s RECONCILE query for slots {@code firstSlot..lastSlot}: the keys of what it
     * applied from {@code previous} past {@code after} (all it holds of it when {@code after} is 0).
     */
    void answered(final int asker, final int firstSlot, final int lastSlot, final int previous, final long after)
    {
        final SenderWindow window = windows.get(previous);
        List<Answered> list = answered.get(asker);
        if (list == null)
        {
            list = new ArrayList<>(1);
            answered.put(asker, list);
        }
        list.removeIf(a -> a.firstSlot() == firstSlot);
        list.add(new Answered(firstSlot, lastSlot, previous, window == null ? 0 : window.incarnation(), after));
    }

    /**
     * A fix-up from {@code asker} for a key of {@code hashSlot} arrived: hand {@code taker} the client write ids of the
     * writes of that key this node applied from the previous primary past the answered query's sequence (the fix-up
     * undoes them), each once; nothing when no query of that range was answered for {@code asker}.
     */
    void takeRevertedWriteIds(final int asker, final int hashSlot, final DirectBuffer key, final int keyIndex,
        final int keyLength, final LongLongConsumer taker)
    {
        final List<Answered> list = answered.get(asker);
        if (list == null)
        {
            return;
        }
        for (final Answered a : list)
        {
            if (hashSlot < a.firstSlot() || hashSlot > a.lastSlot())
            {
                continue;
            }
            final SenderWindow window = windows.get(a.previous());
            if (window != null && window.incarnation() == a.incarnation())
            {
                window.takeWriteIds(a.after(), a.firstSlot(), a.lastSlot(), key, keyIndex, keyLength, taker);
            }
        }
    }

    /** The window of {@code sender}, or null when nothing was recorded from it. */
    SenderWindow window(final int sender)
    {
        return windows.get(sender);
    }

    LocalWrites replicaWrites()
    {
        return replicaWrites;
    }
}
