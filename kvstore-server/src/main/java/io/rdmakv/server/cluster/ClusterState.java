package io.rdmakv.server.cluster;

import java.util.List;

/**
 * One immutable version of the cluster's configuration: members and slot ranges. Decided by the coordination group
 * (Apache Ratis) in a cluster, or derived from the node's own settings on a single node. {@code epoch} rises with
 * every committed change; each range also carries the epoch of its own last change.
 *
 * @param epoch   the configuration's epoch.
 * @param members every node, by id.
 * @param ranges  slot ranges sorted by first slot, covering 0..SLOT_COUNT-1 without overlap.
 */
public record ClusterState(long epoch, List<ClusterMember> members, List<SlotRange> ranges)
{
    /** Hash slots of the cluster (the protocol's KeyHash maps keys to 0..SLOT_COUNT-1). */
    public static final int HASH_SLOT_COUNT = 16_384;

    public ClusterState
    {
        members = List.copyOf(members);
        ranges = List.copyOf(ranges);
        int next = 0;
        for (final SlotRange r : ranges)
        {
            if (r.firstSlot() != next)
            {
                throw new IllegalArgumentException("slot ranges must cover 0.." + (HASH_SLOT_COUNT - 1) +
                    " in order without gaps or overlap; range " + r + " starts at " + r.firstSlot() + ", expected " + next);
            }
            next = r.lastSlot() + 1;
        }
        if (next != HASH_SLOT_COUNT && !ranges.isEmpty())
        {
            throw new IllegalArgumentException("slot ranges end at " + (next - 1) + ", expected " + (HASH_SLOT_COUNT - 1));
        }
    }

    /** The range holding {@code hashSlot} (binary search). */
    public SlotRange rangeOf(final int hashSlot)
    {
        int lo = 0;
        int hi = ranges.size() - 1;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            final SlotRange r = ranges.get(mid);
            if (hashSlot < r.firstSlot())
            {
                hi = mid - 1;
            }
            else if (hashSlot > r.lastSlot())
            {
                lo = mid + 1;
            }
            else
            {
                return r;
            }
        }
        throw new IllegalArgumentException("slot " + hashSlot + " not in any range");
    }

    /** The member with {@code nodeId}, or null. */
    public ClusterMember member(final int nodeId)
    {
        for (final ClusterMember m : members)
        {
            if (m.nodeId() == nodeId)
            {
                return m;
            }
        }
        return null;
    }
}
