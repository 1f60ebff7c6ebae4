package io.rdmakv.server.replication;

import io.rdmakv.server.handler.LocalWrites;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * What this node, as a replica, applied from each sender: one {@link SenderWindow} per sender node (its latest
 * incarnation), filled by {@link ReplicaGate} and read by a new primary's reconcile ({@link Reconciles}) and by the
 * answer to a RECONCILE query. A window is allocated once per sender node; recording allocates nothing.
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
    /** The replica side's own local write path (flushed, and waited for, before a reconcile reads values). */
    private volatile LocalWrites replicaWrites = LocalWrites.NONE;

    ReplicaHistory(final int maxEntries, final int keyBytes)
    {
        this.maxEntries = maxEntries;
        this.keyBytes = keyBytes;
    }

    void record(final int sender, final long incarnation, final long sequence, final int slot, final DirectBuffer key,
        final int keyIndex, final int keyLength)
    {
        SenderWindow window = windows.get(sender);
        if (window == null)
        {
            window = new SenderWindow(maxEntries, keyBytes);
            windows.put(sender, window);
        }
        window.record(incarnation, sequence, slot, key, keyIndex, keyLength);
    }

    /** The window of {@code sender}, or null when nothing was recorded from it. */
    SenderWindow window(final int sender)
    {
        return windows.get(sender);
    }

    void replicaWrites(final LocalWrites writes)
    {
        replicaWrites = writes;
    }

    LocalWrites replicaWrites()
    {
        return replicaWrites;
    }
}
