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
 * the decision is based on.
 *
 * <p>The same holds after a stall of the group without an election: a leader that applied no renewal at all for
 * {@link #stallNanos() lease / 2} (every live member renews every lease / 3, so a working group applies one far more
 * often) decides nothing while it lasts, and once renewals apply again gives every member the same grace from that
 * moment. Its own renewals are among them, so a leader process that was itself paused (a GC pause, a starved CPU) or
 * a group that could not commit (its majority slow to answer) never takes the silence it caused for dead nodes: with
 * the short default lease (600 ms) a host stalling a few hundred milliseconds otherwise failed over live nodes, all
 * three at once (seen while three JVMs started on the shared 2-core host). A dead node's renewals stop while the
 * others' go on, so this never delays its failover. Thread-safe.
 */
public final class LeaseWatchdog
{
    private final long expiryNanos;
    private final long graceNanos;
    private final long stallNanos;
    private final Map<Integer, Long> lastRenewalApplied = new HashMap<>();
    private long electedNanos;
    /** When this voter last applied any renewal or join; {@link #resumedNanos} once applying resumed after a stall. */
    private long lastAnyAppliedNanos;
    private boolean appliedAny;
    private long resumedNanos;
    private boolean resumed;
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
        this.stallNanos = leaseNanos / 2;
    }

    /** This voter applied a renewal of {@code nodeId} (or a join, which starts its lease) at {@code nowNanos}. */
    public synchronized void applied(final int nodeId, final long nowNanos)
    {
        lastRenewalApplied.put(nodeId, nowNanos);
        if (appliedAny && nowNanos - lastAnyAppliedNanos > stallNanos)
        {
            resumed = true;
            resumedNanos = nowNanos;
        }
        if (!appliedAny || nowNanos - lastAnyAppliedNanos > 0)
        {
            lastAnyAppliedNanos = nowNanos;
        }
        appliedAny = true;
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

    /** A gap in the renewals this voter applies (from every member together) longer than this is a stall (lease / 2). */
    public long stallNanos()
    {
        return stallNanos;
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
        // The group applies nothing now (its silence says nothing about any one node), or renewals apply again
        // after a stall (every member gets the grace to have one committed): no decision.
        final boolean quiet = appliedAny && nowNanos - lastAnyAppliedNanos > stallNanos ||
            resumed && nowNanos - resumedNanos < graceNanos;
        for (final ClusterMember m : state.cluster().members())
        {
            if (state.isFailed(m.nodeId()))
            {
                continue;
            }
            final long since = lastRenewalApplied.computeIfAbsent(m.nodeId(), id -> nowNanos);
            if (!quiet && nowNanos - since >= expiryNanos && nowNanos - electedNanos >= graceNanos)
            {
                out.add(new ClusterCommand.FailNode(m.nodeId(), state.renewalsOf(m.nodeId())));
            }
        }
        return out;
    }
}
