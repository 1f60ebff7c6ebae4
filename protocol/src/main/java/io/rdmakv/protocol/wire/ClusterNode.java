package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ProtocolLimits;

import java.util.List;

/**
 * One entry of the cluster map in a {@link Welcome}: a contiguous range of hash slots, the node that is its primary
 * (where requests for it go), the range's epoch and its in-sync backups.
 *
 * <pre>
 *  u32 node id | u16 first slot | u16 last slot | u16 control port | str8 host
 *  | u64 range epoch | u8 backup count | u32 backup node id ...
 * </pre>
 *
 * @param nodeId      the range's primary.
 * @param host        its control-plane host.
 * @param controlPort its control-plane port, 0..65535.
 * @param firstSlot   first owned hash slot, inclusive.
 * @param lastSlot    last owned hash slot, inclusive; {@code firstSlot <= lastSlot < HASH_SLOT_COUNT}.
 * @param rangeEpoch  the range's epoch (0 for a static map); a client keeps the newest it has seen per slot.
 * @param backups     node ids of the range's in-sync backups, in promotion order (at most 255).
 */
public record ClusterNode(int nodeId, String host, int controlPort, int firstSlot, int lastSlot, long rangeEpoch,
    List<Integer> backups)
{
    /** A range of a static map: epoch 0, no backups. */
    public ClusterNode(final int nodeId, final String host, final int controlPort, final int firstSlot,
        final int lastSlot)
    {
        this(nodeId, host, controlPort, firstSlot, lastSlot, 0, List.of());
    }

    public ClusterNode
    {
        backups = List.copyOf(backups);
        if (backups.size() > 0xFF)
        {
            throw new IllegalArgumentException("more than 255 backups: " + backups.size());
        }
        if (rangeEpoch < 0)
        {
            throw new IllegalArgumentException("range epoch " + rangeEpoch + " < 0");
        }
        if (controlPort < 0 || controlPort > 0xFFFF)
        {
            throw new IllegalArgumentException("control port " + controlPort + " not in 0..65535");
        }
        if (firstSlot < 0 || firstSlot > lastSlot || lastSlot >= ProtocolLimits.HASH_SLOT_COUNT)
        {
            throw new IllegalArgumentException("slot range [" + firstSlot + ", " + lastSlot + "] not within 0.." +
                (ProtocolLimits.HASH_SLOT_COUNT - 1));
        }
    }

    public boolean owns(final int hashSlot)
    {
        return hashSlot >= firstSlot && hashSlot <= lastSlot;
    }
}
