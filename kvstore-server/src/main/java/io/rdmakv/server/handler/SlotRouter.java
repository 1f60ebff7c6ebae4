package io.rdmakv.server.handler;

import io.rdmakv.server.config.ClusterNode;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Which cluster hash slots this node serves, from the static cluster map; a request for another node's slot is
 * answered WRONG_NODE with that node's {@code host:controlPort}. Slots in a gap of the map are served locally.
 * Built once; lookups are two array reads.
 */
public final class SlotRouter
{
    private final short[] ownerBySlot = new short[ClusterNode.SLOT_COUNT];
    private final byte[][] addresses;
    private final int localIndex;

    /**
     * @param nodes  the cluster map.
     * @param nodeId this node's id.
     */
    public SlotRouter(final List<ClusterNode> nodes, final int nodeId)
    {
        addresses = new byte[nodes.size()][];
        int local = -1;
        java.util.Arrays.fill(ownerBySlot, (short)-1);
        for (int i = 0; i < nodes.size(); i++)
        {
            final ClusterNode n = nodes.get(i);
            addresses[i] = (n.host() + ':' + n.controlPort()).getBytes(StandardCharsets.UTF_8);
            if (n.nodeId() == nodeId)
            {
                local = i;
            }
            for (int s = n.firstSlot(); s <= n.lastSlot(); s++)
            {
                ownerBySlot[s] = (short)i;
            }
        }
        this.localIndex = local;
    }

    /** A router for a single node serving every slot. */
    public static SlotRouter singleNode()
    {
        return new SlotRouter(List.of(), 0);
    }

    public boolean isLocal(final int slot)
    {
        final int owner = ownerBySlot[slot];
        return owner < 0 || owner == localIndex;
    }

    /** The owner's {@code host:controlPort} in UTF-8 (shared array: do not modify). */
    public byte[] ownerAddress(final int slot)
    {
        final int owner = ownerBySlot[slot];
        return owner < 0 ? new byte[0] : addresses[owner];
    }
}
