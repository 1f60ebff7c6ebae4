package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.config.ClusterSettings;

import java.util.List;

/**
 * A change the coordination group commits, in log order, on every voter. Each is a small value;
 * {@link CommandCodec} writes it into the Raft log and {@link ClusterTransitions} applies it.
 */
public sealed interface ClusterCommand
{
    /** A node (re)joins: its address is recorded; once {@code initialNodes} have joined the slots are laid out. */
    record Join(ClusterMember member, int initialNodes, int replicas) implements ClusterCommand
    {
    }

    /**
     * A node renews its lease (the node timed it from the moment it sent this). {@code knownEpoch} is the configuration
     * epoch the node holds: when the group's is the same, the answer leaves the state out (only renewals, which every
     * other accepted command's new epoch would show, changed since); -1 asks for the whole state.
     */
    record Renew(int nodeId, long knownEpoch) implements ClusterCommand
    {
        /** A renewal that asks for the whole state in its answer. */
        public Renew(final int nodeId)
        {
            this(nodeId, -1);
        }
    }

    /**
     * The leader declares {@code nodeId}'s lease expired, having seen {@code renewalsSeen} renewals of it: its ranges
     * fail over to their first in-sync backup at a new epoch, and it leaves every in-sync set.
     */
    record FailNode(int nodeId, long renewalsSeen) implements ClusterCommand
    {
    }

    /** The primary of the range starting at {@code firstSlot} drops a backup that failed or fell behind. */
    record RemoveFromInSync(int firstSlot, long rangeEpoch, int requester, int nodeId) implements ClusterCommand
    {
    }

    /** The primary of the range starting at {@code firstSlot} reports that a learner caught up. */
    record PromoteLearner(int firstSlot, long rangeEpoch, int requester, int nodeId) implements ClusterCommand
    {
    }

    /** Operator: the in-sync backup {@code target} becomes the range's primary; the old primary becomes a backup. */
    record Failover(int firstSlot, int target) implements ClusterCommand
    {
    }

    /**
     * Resharding, step 1: split out {@code [firstSlot, lastSlot]} (within one range) and add {@code target} to it as
     * a learner; the range is MIGRATING until {@link FinishMove}.
     */
    record BeginMove(int firstSlot, int lastSlot, int target) implements ClusterCommand
    {
    }

    /**
     * Resharding, step 2 (after the target caught up and was promoted to in-sync): {@code target} becomes the
     * primary at a new epoch and the old primary leaves the range. The range stays FENCED (served by nobody) until
     * the old primary reports it stopped serving it ({@link ReleaseRange}), or is declared failed.
     */
    record FinishMove(int firstSlot, int target) implements ClusterCommand
    {
    }

    /**
     * Resharding, step 3: the old primary {@code nodeId} of the moved range starting at {@code firstSlot} stopped
     * serving it (its routing and ownership words follow the new owner); the range is LIVE at the new primary.
     */
    record ReleaseRange(int firstSlot, int nodeId) implements ClusterCommand
    {
    }

    /**
     * Draining a node: {@code nodeId}, a live member holding no replica of the range starting at {@code firstSlot},
     * joins it as a learner (the primary catches it up, then reports it in sync).
     */
    record AddReplica(int firstSlot, int nodeId) implements ClusterCommand
    {
    }

    /** Draining a node: the backup or learner {@code nodeId} leaves the range starting at {@code firstSlot}. */
    record DropReplica(int firstSlot, int nodeId) implements ClusterCommand
    {
    }

    /** Operator: a member that holds no replica leaves the cluster. */
    record RemoveMember(int nodeId) implements ClusterCommand
    {
    }

    /**
     * The group's voters changed (Ratis committed the new configuration): recorded in the state, so that every node,
     * also one started with a stale {@code cluster.voters}, learns where the group is.
     */
    record SetVoters(List<ClusterSettings.Voter> voters) implements ClusterCommand
    {
        public SetVoters
        {
            voters = List.copyOf(voters);
        }
    }
}
