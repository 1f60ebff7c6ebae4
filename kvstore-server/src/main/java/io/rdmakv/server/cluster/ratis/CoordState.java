package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.config.ClusterSettings;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the coordination group's state machine holds: the cluster configuration the data path reads, plus the
 * bookkeeping only the coordinator needs. Immutable; {@link ClusterTransitions} derives the next one from a command.
 *
 * <p>{@code renewals} counts the committed lease renewals of each node: a failover decision names the count it saw,
 * and is refused if the node renewed in between (so a renewal racing with the decision always wins). Renewals do not
 * change {@code cluster}, so they do not move the configuration epoch.
 *
 * @param cluster      the configuration (epoch, members, slot ranges).
 * @param renewals     committed lease renewals per node id.
 * @param failed       node ids declared failed (lease expired); they rejoin with JOIN.
 * @param initialNodes members that must have joined before the first slot layout is made.
 * @param replicas     backups per range wanted (replication factor - 1).
 * @param handoffs     resharding cut-overs under way: first slot of a moved range (FENCED, its new primary set) to the
 *                     old primary that has not yet reported that it stopped serving it (RELEASE_RANGE).
 * @param voters       the group's voters as last recorded after a change of them (SET_VOTERS), sorted by id; empty
 *                     while they are still the bootstrap list of {@code cluster.voters}.
 */
public record CoordState(ClusterState cluster, Map<Integer, Long> renewals, Set<Integer> failed, int initialNodes,
    int replicas, Map<Integer, Integer> handoffs, List<ClusterSettings.Voter> voters)
{
    public CoordState
    {
        renewals = java.util.Collections.unmodifiableMap(new TreeMap<>(renewals));
        failed = java.util.Collections.unmodifiableSet(new TreeSet<>(failed));
        handoffs = java.util.Collections.unmodifiableMap(new TreeMap<>(handoffs));
        voters = List.copyOf(voters);
    }

    /** A state whose voters are still the bootstrap list ({@code cluster.voters}). */
    public CoordState(final ClusterState cluster, final Map<Integer, Long> renewals, final Set<Integer> failed,
        final int initialNodes, final int replicas, final Map<Integer, Integer> handoffs)
    {
        this(cluster, renewals, failed, initialNodes, replicas, handoffs, List.of());
    }

    /** The state before anything was committed: epoch 0, no members, no ranges. */
    public static CoordState empty()
    {
        return new CoordState(new ClusterState(0, List.of(), List.of()), Map.of(), Set.of(), 0, 0, Map.of());
    }

    /** This state with another configuration (the bookkeeping kept). */
    CoordState with(final ClusterState next)
    {
        return new CoordState(next, renewals, failed, initialNodes, replicas, handoffs, voters);
    }

    /** This state with other handoffs. */
    CoordState withHandoffs(final Map<Integer, Integer> next)
    {
        return new CoordState(cluster, renewals, failed, initialNodes, replicas, next, voters);
    }

    /** Committed renewals of {@code nodeId} (0 when none). */
    public long renewalsOf(final int nodeId)
    {
        return renewals.getOrDefault(nodeId, 0L);
    }

    public boolean isFailed(final int nodeId)
    {
        return failed.contains(nodeId);
    }
}
