package io.rdmakv.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.cluster.ratis.RaftVoter;
import io.rdmakv.server.cluster.ratis.RatisClusterView;
import io.rdmakv.server.replication.ReplicaLag;
import io.rdmakv.server.replication.Replication;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The node's place in the cluster, as this node knows it (each node exports its own view; a Ratis leader is not a
 * better source, only one more):
 * <pre>
 *   rdmakv_cluster_map_epoch                                 the committed map's epoch
 *   rdmakv_cluster_range_role{range,role,state}              1 per range this node holds (role primary|backup|learner,
 *                                                            state live|migrating|fenced)
 *   rdmakv_cluster_ranges{role}                              how many ranges it holds, by role
 *   rdmakv_cluster_ranges_fenced                             ranges it holds that are FENCED now
 *   rdmakv_cluster_primary_changes_total                     ranges whose primary changed (failover or move), seen
 *                                                            by this node since it started
 *   rdmakv_cluster_lease_held, _lease_remaining_seconds      its node lease (cluster mode only)
 *   rdmakv_cluster_failed_nodes                              nodes the coordinator marked failed (cluster mode)
 *   rdmakv_ratis_leader, _leader_node_id, _term              the Raft group as this voter sees it (voters only)
 *   rdmakv_replication_outstanding_writes{replica}           writes sent to a replica and not acknowledged yet
 *   rdmakv_replication_last_ack_age_seconds{replica}         since its last acknowledgement
 * </pre>
 * The per-range and per-replica rows are re-read before every scrape ({@link #refresh}).
 */
final class ClusterMeters
{
    private final ClusterView view;
    private final Replication replication;
    private final MultiGauge rangeRoles;
    private final MultiGauge replicaOutstanding;
    private final MultiGauge replicaAckAge;
    private final AtomicLong primaryChanges = new AtomicLong();
    private final Map<Integer, Integer> primaries = new HashMap<>();

    private ClusterMeters(final MeterRegistry registry, final ClusterView view, final Replication replication)
    {
        this.view = view;
        this.replication = replication;
        rangeRoles = MultiGauge.builder("rdmakv.cluster.range.role")
            .description("1 for each slot range this node holds, with its role (primary, backup, learner) and state")
            .register(registry);
        replicaOutstanding = MultiGauge.builder("rdmakv.replication.outstanding.writes")
            .description("Writes this primary sent to a replica (node id) and that are not acknowledged yet")
            .register(registry);
        replicaAckAge = MultiGauge.builder("rdmakv.replication.last.ack.age.seconds")
            .description("Seconds since a replica (node id) last acknowledged a write of this primary; absent " +
                "before its first acknowledgement")
            .register(registry);
    }

    /** Bind the cluster meters of {@code view} (and of {@code replication}, which may be null) to {@code registry}. */
    static ClusterMeters bind(final MeterRegistry registry, final ClusterView view, final Replication replication)
    {
        final ClusterMeters m = new ClusterMeters(registry, view, replication);
        Gauge.builder("rdmakv.cluster.map.epoch", view, v -> v.current().epoch())
            .description("Epoch of the cluster map this node follows (rises with every committed change)")
            .register(registry);
        for (final String role : List.of("primary", "backup", "learner"))
        {
            Gauge.builder("rdmakv.cluster.ranges", view, v -> count(v, role))
                .description("Slot ranges this node holds, by role").tag("role", role).register(registry);
        }
        Gauge.builder("rdmakv.cluster.ranges.fenced", view, ClusterMeters::fenced)
            .description("Slot ranges this node holds that are FENCED (no writes, no one-sided reads) now")
            .register(registry);
        FunctionCounter.builder("rdmakv.cluster.primary.changes", m.primaryChanges, AtomicLong::get)
            .description("Ranges whose primary changed (a failover or a move) in the maps this node applied since " +
                "it started; every node sees the same changes")
            .register(registry);
        if (view instanceof RatisClusterView ratis)
        {
            bindCluster(registry, ratis);
        }
        view.subscribe(m::onState); // first: a map committed meanwhile is then seen (seeing one twice counts nothing)
        m.onState(view.current());
        m.refresh();
        return m;
    }

    private static void bindCluster(final MeterRegistry registry, final RatisClusterView ratis)
    {
        Gauge.builder("rdmakv.cluster.lease.held", ratis, v -> v.holdsLease(System.nanoTime()) ? 1 : 0)
            .description("1 while this node's lease surely holds (it may answer writes); 0 when lost or expired")
            .register(registry);
        Gauge.builder("rdmakv.cluster.lease.remaining.seconds", ratis,
            v -> Math.max(0, v.leaseDeadlineNanos() - System.nanoTime()) / 1e9)
            .description("Seconds until this node's lease expires unless renewed (0 when lost)")
            .register(registry);
        Gauge.builder("rdmakv.cluster.failed.nodes", ratis, v -> v.coordState().failed().size())
            .description("Nodes the coordinator has marked failed").register(registry);
        if (ratis.voter() != null)
        {
            final RaftVoter voter = ratis.voter();
            Gauge.builder("rdmakv.ratis.leader", voter, v -> v.isLeader() ? 1 : 0)
                .description("1 while this voter is the Raft group's leader").register(registry);
            Gauge.builder("rdmakv.ratis.leader.node.id", voter, RaftVoter::leaderNodeId)
                .description("Node id of the Raft leader as this voter knows it (-1: none)").register(registry);
            Gauge.builder("rdmakv.ratis.term", voter, RaftVoter::currentTerm)
                .description("The Raft term this voter is in (rises with every election)").register(registry);
        }
    }

    /** A newly committed map (the view's thread): count the ranges whose primary changed. */
    private synchronized void onState(final ClusterState state)
    {
        for (final SlotRange r : state.ranges())
        {
            final Integer before = primaries.put(r.firstSlot(), r.primary());
            if (before != null && before != r.primary())
            {
                primaryChanges.incrementAndGet();
            }
        }
    }

    /** Re-read the per-range and per-replica rows (before each scrape). */
    void refresh()
    {
        final int self = view.localNodeId();
        final List<MultiGauge.Row<?>> roles = new ArrayList<>();
        for (final SlotRange r : view.current().ranges())
        {
            final String role = roleOf(r, self);
            if (role != null)
            {
                roles.add(MultiGauge.Row.of(Tags.of("range", r.firstSlot() + "-" + r.lastSlot(), "role", role,
                    "state", r.state().name().toLowerCase(Locale.ROOT)), 1));
            }
        }
        rangeRoles.register(roles, true);
        final List<MultiGauge.Row<?>> outstanding = new ArrayList<>();
        final List<MultiGauge.Row<?>> ackAge = new ArrayList<>();
        final Map<Integer, ReplicaLag.Snapshot> lag = replication == null ? Map.of() : replication.lag();
        for (final ReplicaLag.Snapshot s : lag.values())
        {
            final Tags replica = Tags.of("replica", Integer.toString(s.nodeId()));
            outstanding.add(MultiGauge.Row.of(replica, s.outstanding()));
            if (s.lastAckAgoMillis() >= 0)
            {
                ackAge.add(MultiGauge.Row.of(replica, s.lastAckAgoMillis() / 1000.0));
            }
        }
        replicaOutstanding.register(outstanding, true);
        replicaAckAge.register(ackAge, true);
    }

    /** primary, backup, learner, or null when {@code self} does not hold {@code range}. */
    static String roleOf(final SlotRange range, final int self)
    {
        if (range.primary() == self)
        {
            return "primary";
        }
        if (range.backups().contains(self))
        {
            return "backup";
        }
        return range.learners().contains(self) ? "learner" : null;
    }

    private static double count(final ClusterView view, final String role)
    {
        final int self = view.localNodeId();
        return view.current().ranges().stream().filter(r -> role.equals(roleOf(r, self))).count();
    }

    private static double fenced(final ClusterView view)
    {
        final int self = view.localNodeId();
        return view.current().ranges().stream()
            .filter(r -> r.state() == SlotRange.State.FENCED && roleOf(r, self) != null).count();
    }
}
