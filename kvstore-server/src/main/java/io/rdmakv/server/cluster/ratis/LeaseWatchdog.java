package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterMember;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The leader's view of node leases, on the leader's own monotonic clock. A node's lease is surely over
 * {@code lease * drift} after this voter applied its last renewal; a voter that just became leader first waits a
 * full {@code lease * drift} from its election, since renewals committed under the previous leader may have reached
 * it late or not at all. Only then does {@link #expired} name a node, with the renewal count the decision is based on
 * (the command is refused if the node renewed since). Thread-safe.
 */
public final class LeaseWatchdog
{
    private final long expiryNanos;
    private final Map<Integer, Long> lastRenewalApplied = new HashMap<>();
    private long leaderSinceNanos;
    private boolean leader;

    /**
     * @param leaseNanos the node lease.
     * @param maxDrift   the clock drift bound (at least 1.0): how much faster a node's clock may run than ours.
     */
    public LeaseWatchdog(final long leaseNanos, final double maxDrift)
    {
        if (maxDrift < 1.0)
        {
            throw new IllegalArgumentException("cluster.maxClockDrift must be at least 1.0: " + maxDrift);
        }
        this.expiryNanos = (long)Math.ceil(leaseNanos * maxDrift);
    }

    /** This voter applied a renewal of {@code nodeId} (or a join, which starts its lease) at {@code nowNanos}. */
    public synchronized void applied(final int nodeId, final long nowNanos)
    {
        lastRenewalApplied.put(nodeId, nowNanos);
    }

    /** This voter became the Raft leader at {@code nowNanos}. */
    public synchronized void becameLeader(final long nowNanos)
    {
        leader = true;
        leaderSinceNanos = nowNanos;
    }

    /** This voter is no longer the leader. */
    public synchronized void lostLeadership()
    {
        leader = false;
    }

    public synchronized boolean isLeader()
    {
        return leader;
    }

    /** How long after the last applied renewal a lease is declared over ({@code lease * drift}). */
    public long expiryNanos()
    {
        return expiryNanos;
    }

    /**
     * Live members whose lease is surely over at {@code nowNanos}, each with the renewal count seen, when this voter
     * is the leader and has been for at least {@code lease * drift}; otherwise none.
     */
    public synchronized List<ClusterCommand.FailNode> expired(final CoordState state, final long nowNanos)
    {
        final List<ClusterCommand.FailNode> out = new ArrayList<>();
        if (!leader || nowNanos - leaderSinceNanos < expiryNanos)
        {
            return out;
        }
        for (final ClusterMember m : state.cluster().members())
        {
            if (state.isFailed(m.nodeId()))
            {
                continue;
            }
            final long since = Math.max(lastRenewalApplied.getOrDefault(m.nodeId(), leaderSinceNanos),
                leaderSinceNanos);
            if (nowNanos - since >= expiryNanos)
            {
                out.add(new ClusterCommand.FailNode(m.nodeId(), state.renewalsOf(m.nodeId())));
            }
        }
        return out;
    }
}
