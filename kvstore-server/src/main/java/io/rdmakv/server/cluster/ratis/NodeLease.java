package io.rdmakv.server.cluster.ratis;

/**
 * A node's own lease, on its own monotonic clock: a renewal sent at {@code t} and committed makes the lease hold
 * until {@code t + lease}. The node times from the SEND, not the answer, so the coordinator, which applies the
 * renewal later and waits {@code lease * drift} from then, never sees the lease end before the node stops.
 * Thread-safe; the deadline only moves forward.
 */
public final class NodeLease
{
    private final long leaseNanos;
    private volatile long deadlineNanos;
    private volatile boolean held;

    public NodeLease(final long leaseNanos)
    {
        if (leaseNanos <= 0)
        {
            throw new IllegalArgumentException("lease must be positive: " + leaseNanos);
        }
        this.leaseNanos = leaseNanos;
    }

    /** A renewal sent at {@code sentNanos} was committed. */
    public synchronized void renewed(final long sentNanos)
    {
        final long deadline = sentNanos + leaseNanos;
        if (!held || deadline - deadlineNanos > 0)
        {
            deadlineNanos = deadline;
            held = true;
        }
    }

    /** The coordinator declared this node failed: the lease is gone until a rejoin and a new renewal. */
    public synchronized void revoke()
    {
        held = false;
    }

    /** True while a committed renewal's lease still runs at {@code nowNanos}. */
    public boolean holds(final long nowNanos)
    {
        return held && deadlineNanos - nowNanos > 0;
    }

    /** The end of the lease (meaningful while {@link #holds}); {@link Long#MIN_VALUE} when none is held. */
    public long deadlineNanos()
    {
        return held ? deadlineNanos : Long.MIN_VALUE;
    }

    public long leaseNanos()
    {
        return leaseNanos;
    }
}
