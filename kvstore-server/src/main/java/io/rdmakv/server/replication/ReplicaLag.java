package io.rdmakv.server.replication;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How far each replica this node sends writes to (backups and catching-up learners) is behind it, as the primary's
 * replication sees it: client writes sent, acknowledged, and outstanding (sent, not acknowledged yet), and how long
 * ago the last acknowledgement came. Written by the request thread only (one writer per replica, plain volatile
 * stores); read by any thread ({@code rdmakv cluster status}).
 */
public final class ReplicaLag
{
    private final Map<Integer, Counters> byNode = new ConcurrentHashMap<>();

    /**
     * One replica's figures at one moment.
     *
     * @param sent        client writes sent to it.
     * @param acked       of those, answered (in order: the oldest first).
     * @param lastAckAgoMillis milliseconds since its last acknowledgement (-1: none yet).
     */
    public record Snapshot(int nodeId, long sent, long acked, long lastAckAgoMillis)
    {
        /** Writes sent and not acknowledged yet. */
        public long outstanding()
        {
            return sent - acked;
        }
    }

    /** A write of one key of {@code keyBytes} went to {@code nodeId} (request thread). */
    void sent(final int nodeId, final int keyBytes)
    {
        sent(nodeId, 1, keyBytes);
    }

    /**
     * A message carrying {@code entries} keys of {@code keyBytes} in all (an atomic batch: several) went to
     * {@code nodeId} (request thread).
     */
    void sent(final int nodeId, final int entries, final int keyBytes)
    {
        final Counters c = byNode.computeIfAbsent(nodeId, n -> new Counters());
        c.sent = c.sent + 1;
        c.inFlight.offerLong(((long)entries << 32) | (keyBytes & 0xFFFF_FFFFL));
        c.entriesInFlight += entries;
        c.keyBytesInFlight += keyBytes;
    }

    /** {@code nodeId} answered a write it was sent, in order (request thread). */
    void acked(final int nodeId, final long nowNanos)
    {
        final Counters c = byNode.get(nodeId);
        if (c != null)
        {
            c.acked = c.acked + 1;
            c.lastAckNanos = nowNanos;
            if (!c.inFlight.isEmpty())
            {
                final long message = c.inFlight.pollLong();
                c.entriesInFlight -= (int)(message >>> 32);
                c.keyBytesInFlight -= (int)message;
            }
        }
    }

    /**
     * Whether one more message of {@code entries} keys of {@code keyBytes} to {@code nodeId} keeps what it has
     * unanswered within {@code maxEntries} keys and {@code maxKeyBytes} bytes of keys (request thread): the reconcile
     * window a replica keeps per sender ({@link ReplicaHistory}), so that every write a stopped primary had in flight
     * lies in its backups' windows and a new primary can reconcile them instead of a full catch-up. A message is
     * always admitted when nothing is unanswered.
     */
    boolean admits(final int nodeId, final int entries, final int keyBytes, final int maxEntries,
        final int maxKeyBytes)
    {
        final Counters c = byNode.get(nodeId);
        // With nothing unanswered a message always goes: an atomic batch larger than the window alone would otherwise
        // be refused forever (it can hold the value limit in keys); past the window it is caught up in full instead.
        return c == null || c.inFlight.isEmpty() ||
            c.entriesInFlight + entries <= maxEntries && c.keyBytesInFlight + keyBytes <= maxKeyBytes;
    }

    /** The link to {@code nodeId} dropped: what was outstanding will never be answered; start again from zero. */
    void forget(final int nodeId)
    {
        byNode.remove(nodeId);
    }

    /** Every replica's figures, by node id. */
    public Map<Integer, Snapshot> snapshot(final long nowNanos)
    {
        final Map<Integer, Snapshot> out = new TreeMap<>();
        byNode.forEach((node, c) ->
        {
            final long last = c.lastAckNanos;
            final long acked = c.acked;
            final long sent = c.sent;
            out.put(node, new Snapshot(node, Math.max(sent, acked), acked,
                last == 0 ? -1 : (nowNanos - last) / 1_000_000));
        });
        return out;
    }

    private static final class Counters
    {
        volatile long sent;
        volatile long acked;
        volatile long lastAckNanos;
        /** Request thread only: each unanswered message's (keys << 32 | key bytes), oldest first, and their sums. */
        final org.agrona.collections.LongArrayQueue inFlight = new org.agrona.collections.LongArrayQueue(Long.MIN_VALUE);
        int entriesInFlight;
        long keyBytesInFlight;
    }
}
