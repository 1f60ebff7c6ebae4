package io.rdmakv.server.replication;

import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The primary's memory of which backups held which of its ranges, and up to where: what lets a backup that restarts
 * resume its catch-up instead of copying the whole range again ({@link LearnerCatchUps}).
 *
 * <pre>
 *   acked     an in-sync backup acknowledged a write of the range (replication sequence r): its point is created at
 *             r (inSyncFrom) if it had none, and ackedThrough becomes r. Acknowledgements come in order and a backup
 *             that misses one leaves the in-sync set before it acknowledges a later one of the range (the gap rule),
 *             so the backup held every write of the range up to ackedThrough, and the whole range before inSyncFrom
 *             (an in-sync backup; a write it awaits was sent after a catch-up's copies were all acknowledged)
 *   resume    the learner says it held the range up to s at start (its store's sequence from this incarnation):
 *             p = min(s, ackedThrough) >= inSyncFrom -> it holds everything of the range up to p; else none
 *   forgotten when a catch-up of the node on the range begins (it consumes the point; put back when it ends before
 *             the learner answered where it stands, e.g. a learner that is down), when this node is no longer
 *             the range's primary or the range's boundaries changed (another node's writes are in no window here)
 * </pre>
 * Request thread only.
 */
final class ResumePoints
{
    /** Where one backup held one range: everything up to {@link #ackedThrough}, from {@link #inSyncFrom} on. */
    static final class Point
    {
        final int lastSlot;
        final long inSyncFrom;
        long ackedThrough;

        Point(final int lastSlot, final long inSyncFrom)
        {
            this.lastSlot = lastSlot;
            this.inSyncFrom = inSyncFrom;
            this.ackedThrough = inSyncFrom;
        }

        /**
         * The sequence up to which the node holds the range when its store held {@code applied} of this incarnation
         * at start, or -1 when that does not say (it lost writes acknowledged while in sync from the point on).
         */
        long resumeAfter(final long applied)
        {
            final long p = Math.min(applied, ackedThrough);
            return p >= inSyncFrom ? p : -1;
        }
    }

    private final int self;
    /** By (first slot << 32 | node). */
    private final Long2ObjectHashMap<Point> points = new Long2ObjectHashMap<>();

    ResumePoints(final int self)
    {
        this.self = self;
    }

    private static long key(final int firstSlot, final int node)
    {
        return ((long)firstSlot << 32) | (node & 0xFFFF_FFFFL);
    }

    /**
     * In-sync backup {@code node} of the range acknowledged this node's write {@code sequence} of it, sent when the
     * range began at {@code firstSlot} (a write of other boundaries says nothing of this range).
     */
    void acked(final SlotRange range, final int firstSlot, final int node, final long sequence)
    {
        if (sequence <= 0 || range.firstSlot() != firstSlot || range.primary() != self ||
            !range.backups().contains(node))
        {
            return;
        }
        final long key = key(range.firstSlot(), node);
        final Point point = points.get(key);
        if (point == null || point.lastSlot != range.lastSlot())
        {
            points.put(key, new Point(range.lastSlot(), sequence));
        }
        else
        {
            point.ackedThrough = Math.max(point.ackedThrough, sequence);
        }
    }

    /** The point of {@code node} on the range, removed (a catch-up begins and consumes it), or null. */
    Point take(final int firstSlot, final int lastSlot, final int node)
    {
        final Point point = points.remove(key(firstSlot, node));
        return point != null && point.lastSlot == lastSlot ? point : null;
    }

    /** A catch-up that took {@code point} ended before it sent anything that changes the node: keep it. */
    void putBack(final int firstSlot, final int node, final Point point)
    {
        points.putIfAbsent(key(firstSlot, node), point);
    }

    /** Forget the points of ranges {@code state} does not give this node with the same boundaries. */
    void observe(final ClusterState state)
    {
        if (points.isEmpty())
        {
            return;
        }
        final var it = points.keySet().iterator();
        while (it.hasNext())
        {
            final long key = it.nextLong();
            final int firstSlot = (int)(key >>> 32);
            final SlotRange range = state.ranges().isEmpty() ? null : state.rangeOf(firstSlot);
            if (range == null || range.firstSlot() != firstSlot || range.lastSlot() != points.get(key).lastSlot ||
                range.primary() != self)
            {
                it.remove();
            }
        }
    }

    int size()
    {
        return points.size();
    }
}
