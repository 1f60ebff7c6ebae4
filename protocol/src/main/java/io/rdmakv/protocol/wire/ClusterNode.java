package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ProtocolLimits;

/**
 * One entry of the cluster map in a {@link Welcome}: a node and the contiguous range of hash slots it owns.
 *
 * <pre>
 *  u32 node id | u16 first slot | u16 last slot | u16 control port | str8 host
 * </pre>
 *
 * @param nodeId      the node.
 * @param host        its control-plane host.
 * @param controlPort its control-plane port, 0..65535.
 * @param firstSlot   first owned hash slot, inclusive.
 * @param lastSlot    last owned hash slot, inclusive; {@code firstSlot <= lastSlot < CLUSTER_SLOT_COUNT}.
 */
public record ClusterNode(int nodeId, String host, int controlPort, int firstSlot, int lastSlot)
{
    public ClusterNode
    {
        if (controlPort < 0 || controlPort > 0xFFFF)
        {
            throw new IllegalArgumentException("control port " + controlPort + " not in 0..65535");
        }
        if (firstSlot < 0 || firstSlot > lastSlot || lastSlot >= ProtocolLimits.CLUSTER_SLOT_COUNT)
        {
            throw new IllegalArgumentException("slot range [" + firstSlot + ", " + lastSlot + "] not within 0.." +
                (ProtocolLimits.CLUSTER_SLOT_COUNT - 1));
        }
    }

    public boolean owns(final int slot)
    {
        return slot >= firstSlot && slot <= lastSlot;
    }
}
