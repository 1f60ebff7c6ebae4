package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A test-only pause at the resharding cut-over, so a fault test can kill the source or the target of a move at that
 * very moment instead of hoping to hit it. With the system property {@value #PROPERTY} set to a number of
 * milliseconds, a node that learns a committed state in which a range it was moving (as primary) or receiving (as
 * learner) changed primary, or a manual failover handed a range it was primary of (or becomes primary of), logs {@value #MARKER} and holds its view's notification thread that long before any
 * listener sees the state: request routing and the pool's ownership words stay as before the cut-over, as on a node
 * that has not heard of it yet. Off (0) unless the property is set.
 */
final class CutOverHold
{
    /** System property: how long to hold, in milliseconds (0 or unset: never). */
    static final String PROPERTY = "rdmakv.test.holdCutOverMs";
    /** Logged when the hold begins; fault tests wait for it in the node's log. */
    static final String MARKER = "CUT-OVER HELD";

    private static final Logger LOG = LoggerFactory.getLogger(CutOverHold.class);

    private final int localNodeId;
    private final long holdMillis;
    /** The last state delivered to listeners (notification thread only). */
    private ClusterState delivered;

    CutOverHold(final int localNodeId, final long holdMillis)
    {
        this.localNodeId = localNodeId;
        this.holdMillis = holdMillis;
    }

    /** The hold configured by {@value #PROPERTY}, for node {@code localNodeId}. */
    static CutOverHold configured(final int localNodeId)
    {
        final String value = System.getProperty(PROPERTY);
        long millis = 0;
        if (value != null)
        {
            try
            {
                millis = Long.parseLong(value.trim());
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException(PROPERTY + " must be a number of milliseconds: '" + value + "'", ex);
            }
        }
        return new CutOverHold(localNodeId, Math.max(0, millis));
    }

    /** Called with each state before listeners see it; holds when it is a cut-over this node takes part in. */
    void beforeDelivery(final ClusterState next)
    {
        final ClusterState before = delivered;
        delivered = next;
        if (holdMillis == 0 || before == null)
        {
            return;
        }
        final SlotRange moved = cutOver(before, next, localNodeId);
        if (moved != null)
        {
            LOG.warn("{} on node {} ({} of slots {}-{}, epoch {}): for {} ms ({})", MARKER, localNodeId,
                moved.primary() == localNodeId ? "target" : "source", moved.firstSlot(), moved.lastSlot(),
                moved.epoch(), holdMillis, PROPERTY);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(holdMillis));
        }
    }

    /**
     * The range of {@code next} handed to a new primary since {@code before}, where this node was the old primary or
     * becomes the new one; null when there is none. A handover is a move's cut-over (the range was MIGRATING) or a
     * manual failover (it was LIVE and is FENCED now, until the old primary releases it).
     */
    static SlotRange cutOver(final ClusterState before, final ClusterState next, final int nodeId)
    {
        for (final SlotRange old : before.ranges())
        {
            final SlotRange now = next.ranges().isEmpty() ? null : next.rangeOf(old.firstSlot());
            if (now == null || now.primary() == old.primary() || old.primary() != nodeId && now.primary() != nodeId)
            {
                continue;
            }
            if (old.state() == SlotRange.State.MIGRATING ||
                old.state() == SlotRange.State.LIVE && now.state() == SlotRange.State.FENCED)
            {
                return now;
            }
        }
        return null;
    }
}
