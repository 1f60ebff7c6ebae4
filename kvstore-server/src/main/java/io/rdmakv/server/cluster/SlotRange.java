package io.rdmakv.server.cluster;

import java.util.List;

/**
 * A contiguous range of hash slots and who holds it, at which epoch.
 *
 * <p>The primary answers every PUT/DELETE of the range and replicates it to each in-sync backup before it answers;
 * a catching-up replica ({@code learners}) receives the stream too but does not count for acknowledgement and can
 * not be promoted. {@code epoch} rises with every change of this range's primary, replica set or state; replication
 * messages carry it and a replica refuses one older than its own.
 *
 * @param firstSlot first hash slot, inclusive.
 * @param lastSlot  last hash slot, inclusive.
 * @param epoch     this range's epoch (monotonic, cluster-wide unique per change).
 * @param primary   node id of the primary.
 * @param backups   node ids of the in-sync backups, in promotion order.
 * @param learners  node ids of replicas still catching up.
 * @param state     LIVE, or MIGRATING / FENCED during a move or after the primary lost its lease.
 */
public record SlotRange(int firstSlot, int lastSlot, long epoch, int primary, List<Integer> backups,
    List<Integer> learners, State state)
{
    /** The range's state, also published in the pool's per-slot ownership words for one-sided readers. */
    public enum State
    {
        /** The primary serves reads and writes. */
        LIVE,
        /** Being moved: the primary still serves; the target catches up as a learner. */
        MIGRATING,
        /** Writes and one-sided reads must not be served here; readers re-route. */
        FENCED
    }

    public SlotRange
    {
        if (firstSlot < 0 || firstSlot > lastSlot || lastSlot >= ClusterState.HASH_SLOT_COUNT)
        {
            throw new IllegalArgumentException("slot range [" + firstSlot + ", " + lastSlot + "]");
        }
        backups = List.copyOf(backups);
        learners = List.copyOf(learners);
    }

    public boolean contains(final int hashSlot)
    {
        return hashSlot >= firstSlot && hashSlot <= lastSlot;
    }

    /** True when {@code nodeId} is the primary, an in-sync backup or a learner of this range. */
    public boolean hasReplica(final int nodeId)
    {
        return primary == nodeId || backups.contains(nodeId) || learners.contains(nodeId);
    }
}
