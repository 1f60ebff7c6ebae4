package io.rdmakv.server.cluster;

import io.rdmakv.protocol.wire.ResponseFlyweight;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.TimeUnit;

/**
 * What read lease this node grants in an answer (see {@link ResponseFlyweight#readLeaseMillis()}): its remaining node
 * lease minus a margin, in whole milliseconds rounded down, or nothing once its lease is gone. A node whose view has
 * no expiring lease (a static map) grants {@link ResponseFlyweight#READ_LEASE_UNBOUNDED}. The client times the grant
 * from the moment it sent the request and scales it down by the drift bound, so its lease on this node ends before
 * this node's lease does, and that ends before a new primary can accept a write. Two loads and a clock read per answer.
 */
public final class ReadLeaseGrant
{
    /** Grants an unbounded lease: a node with no node lease (single node, fixed map). */
    public static final ReadLeaseGrant UNBOUNDED = new ReadLeaseGrant(null, System::nanoTime, 0);

    private final ClusterView view;
    private final NanoClock clock;
    private final long marginNanos;

    /**
     * @param view        the node's view (its lease deadline).
     * @param clock       the node's monotonic clock, the one its lease is timed on.
     * @param marginNanos subtracted from the remaining lease (answer latency, rounding): at least 0.
     */
    public ReadLeaseGrant(final ClusterView view, final NanoClock clock, final long marginNanos)
    {
        if (marginNanos < 0)
        {
            throw new IllegalArgumentException("read lease margin must be >= 0: " + marginNanos);
        }
        this.view = view;
        this.clock = clock;
        this.marginNanos = marginNanos;
    }

    /** The grant for an answer sent now: ms, {@link ResponseFlyweight#READ_LEASE_NONE} or UNBOUNDED. */
    public int grantMillis()
    {
        if (view == null)
        {
            return ResponseFlyweight.READ_LEASE_UNBOUNDED;
        }
        final long deadline = view.leaseDeadlineNanos();
        if (deadline == Long.MAX_VALUE)
        {
            return ResponseFlyweight.READ_LEASE_UNBOUNDED;
        }
        final long now = clock.nanoTime();
        if (!view.holdsLease(now))
        {
            return ResponseFlyweight.READ_LEASE_NONE;
        }
        final long remaining = deadline - now - marginNanos;
        if (remaining <= 0)
        {
            return ResponseFlyweight.READ_LEASE_NONE;
        }
        return (int)Math.min(TimeUnit.NANOSECONDS.toMillis(remaining), ResponseFlyweight.READ_LEASE_MAX_MILLIS);
    }
}
