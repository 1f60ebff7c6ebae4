package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterJson;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.config.ClusterSettings;

import java.util.ArrayList;
import java.util.List;

/**
 * The answer to {@code status}: one {@link Status} built from the committed state, written as a table for people
 * ({@link #text}) or as JSON ({@link #json}, with Jackson; the fields are listed in docs/operations.md).
 */
final class StatusReport
{
    private StatusReport()
    {
    }

    /** A node's part in the coordination group. */
    enum Role
    {
        /** The group's leader, as this node knows it. */
        LEADER,
        /** A voter of the group. */
        VOTER,
        /** A member that follows the group without voting. */
        FOLLOWER,
        /** A node of a static cluster map (no group). */
        STATIC
    }

    /** What the group decided about a member. */
    enum MemberState
    {
        LIVE,
        FAILED
    }

    /**
     * A member's lease as the answering node knows it: its own is {@code HELD} (with the time left) or
     * {@code NOT_HELD}; another member's is {@code RENEWING} while the group counts its renewals, {@code EXPIRED}
     * once it was declared failed; {@code NONE} on a static cluster map.
     */
    enum LeaseState
    {
        HELD,
        NOT_HELD,
        RENEWING,
        EXPIRED,
        NONE
    }

    /** {@code remainingMs}: the answering node's own lease only; null otherwise. */
    record Lease(LeaseState state, Long remainingMs)
    {
    }

    record Voter(int id, String host, int port)
    {
    }

    record Node(int id, String host, int controlPort, int dataPort, Role role, MemberState state, boolean failed,
        long renewals, Lease lease)
    {
    }

    /** {@code leader}: the coordination leader's node id, null when unknown or on a static map. */
    record Status(long epoch, int answeredBy, Integer leader, List<Voter> voters, List<Node> nodes,
        List<ClusterJson.Range> ranges)
    {
    }

    static Status of(final CoordState coord, final ClusterView view, final RatisClusterView ratis)
    {
        final ClusterState c = coord.cluster();
        final RaftVoter own = ratis == null ? null : ratis.voter();
        final Integer leader = own == null || own.leaderNodeId() < 0 ? null : own.leaderNodeId();
        final List<Voter> voters = ratis == null ? List.of() : voters(ratis.voters());
        final List<Node> nodes = new ArrayList<>();
        for (final ClusterMember m : c.members())
        {
            final boolean failed = coord.isFailed(m.nodeId());
            nodes.add(new Node(m.nodeId(), m.host(), m.controlPort(), m.dataPort(), role(ratis, leader, m.nodeId()),
                failed ? MemberState.FAILED : MemberState.LIVE, failed, coord.renewalsOf(m.nodeId()),
                lease(view, ratis, m.nodeId(), failed)));
        }
        return new Status(c.epoch(), view.localNodeId(), leader, voters, nodes, ClusterJson.Range.of(c.ranges()));
    }

    static List<Voter> voters(final List<ClusterSettings.Voter> voters)
    {
        return voters.stream().map(v -> new Voter(v.nodeId(), v.host(), v.raftPort())).toList();
    }

    static String json(final CoordState coord, final ClusterView view, final RatisClusterView ratis)
    {
        return ClusterJson.write(of(coord, view, ratis));
    }

    static String text(final CoordState coord, final ClusterView view, final RatisClusterView ratis)
    {
        final Status s = of(coord, view, ratis);
        final StringBuilder b = new StringBuilder();
        b.append("epoch ").append(s.epoch()).append(", answered by node ").append(s.answeredBy());
        if (ratis != null && ratis.voter() != null)
        {
            b.append(", coordination leader node ").append(s.leader() == null ? -1 : s.leader());
        }
        if (ratis != null)
        {
            b.append(", voters ").append(VoterChanges.text(ratis.voters()));
        }
        b.append('\n').append(String.format("%-5s %-22s %-6s %-9s %-7s %s%n", "node", "control", "data", "role",
            "state", "lease"));
        for (final Node n : s.nodes())
        {
            b.append(String.format("%-5d %-22s %-6d %-9s %-7s %s%n", n.id(), n.host() + ":" + n.controlPort(),
                n.dataPort(), n.role().name().toLowerCase(java.util.Locale.ROOT),
                n.failed() ? "FAILED" : "live", leaseText(n)));
        }
        b.append(String.format("%-13s %-6s %-8s %-8s %-10s %s%n", "slots", "epoch", "primary", "backups",
            "learners", "state"));
        for (final ClusterJson.Range r : s.ranges())
        {
            b.append(String.format("%-13s %-6d %-8d %-8s %-10s %s%n", r.from() + "-" + r.to(), r.epoch(),
                r.primary(), ids(r.backups()), ids(r.learners()), r.state()));
        }
        return b.toString();
    }

    private static String leaseText(final Node n)
    {
        return switch (n.lease().state())
        {
            case HELD -> "held, " + n.lease().remainingMs() + " ms left";
            case NOT_HELD -> "NOT held";
            case RENEWING -> n.renewals() + " renewals";
            case EXPIRED -> "expired";
            case NONE -> "-";
        };
    }

    private static Role role(final RatisClusterView ratis, final Integer leader, final int nodeId)
    {
        if (ratis == null)
        {
            return Role.STATIC;
        }
        if (!VoterChanges.contains(ratis.voters(), nodeId))
        {
            return Role.FOLLOWER;
        }
        return leader != null && leader == nodeId ? Role.LEADER : Role.VOTER;
    }

    private static Lease lease(final ClusterView view, final RatisClusterView ratis, final int nodeId,
        final boolean failed)
    {
        if (ratis == null)
        {
            return new Lease(LeaseState.NONE, null);
        }
        if (nodeId == view.localNodeId())
        {
            final long now = System.nanoTime();
            return view.holdsLease(now) ? new Lease(LeaseState.HELD, (view.leaseDeadlineNanos() - now) / 1_000_000) :
                new Lease(LeaseState.NOT_HELD, null);
        }
        return new Lease(failed ? LeaseState.EXPIRED : LeaseState.RENEWING, null);
    }

    private static String ids(final List<Integer> ids)
    {
        return ids.isEmpty() ? "-" : ids.toString().replace(" ", "");
    }
}
