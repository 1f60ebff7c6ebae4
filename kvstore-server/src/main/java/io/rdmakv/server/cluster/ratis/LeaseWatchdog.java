package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterMember;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The leader's view of node leases, on the leader's own monotonic clock. A node's lease is surely over
 * {@code lease * drift} after this voter applied its last renewal: the node times its lease from the moment it sent
 * that renewal, which is before any voter applied it. A voter that becomes leader decides from what it applied as a
 * follower: every renewal committed under an earlier leader is in its log (Raft's leader completeness) and is
 * applied, at a time later than it was sent, before the voter's own decisions; a renewal applied after a decision was
 * taken makes the decision's renewal count stale, and the group refuses it ({@link ClusterTransitions}). It gives
 * every member at least {@link #electionGraceNanos() lease / 3} (a renewal interval) from its election, though: no
 * renewal could commit while the group had no leader, so after an election longer than {@code lease * drift} every
 * live node would look expired at once (measured at host load ~13: the new leader failed all three nodes, itself
 * included, and the cluster served no write on the failed-over slots for two minutes). Waiting longer than the rule
 * above is always safe; a truly dead node fails over at most that grace later (lease / 2 took a killed leader's
 * failover to 3.2 s, past lease + 1 s). A member this voter has no renewal of (it loaded the state from a snapshot) is
 * timed from when the voter first looked. {@link #expired} names each node with the renewal count
 * the decision is based on. Thread-safe.
 */
public final class LeaseWatchdog
{
    private final long expiryNanos;
    private final long graceNanos;
    private final Map<Integer, Long> lastRenewalApplied = new HashMap<>();
    private long electedNanos;
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
        this.graceNanos = leaseNanos / 3;
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
        electedNanos = nowNanos;
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

    /** The least time a new leader gives every member from its election to have a renewal committed (lease / 3). */
    public long electionGraceNanos()
    {
        return graceNanos;
    }

    /**
     * Live members whose lease is surely over at {@code nowNanos}, each with the renewal count seen, when this voter
     * is the leader; otherwise none.
     */
    public synchronized List<ClusterCommand.FailNode> expired(final CoordState state, final long nowNanos)
    {
        final List<ClusterCommand.FailNode> out = new ArrayList<>();
        if (!leader)
        {
            return out;
        }
        for (final ClusterMember m : state.cluster().members())
        {
            if (state.isFailed(m.nodeId()))
            {
                continue;
            }
            final long since = lastRenewalApplied.computeIfAbsent(m.nodeId(), id -> nowNanos);
            if (nowNanos - since >= expiryNanos && nowNanos - electedNanos >= graceNanos)
            {
                out.add(new ClusterCommand.FailNode(m.nodeId(), state.renewalsOf(m.nodeId())));
            }
        }
        return out;
    }
}
