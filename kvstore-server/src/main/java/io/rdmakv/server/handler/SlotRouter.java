package io.rdmakv.server.handler;

import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Which cluster hash slots this node serves now, from one {@link ClusterState}: a slot is served here when this node
 * is its range's primary and the range is not FENCED; otherwise the request is answered WRONG_NODE with the primary's
 * {@code host:controlPort} (this node's own address while the range is fenced or the cluster has no layout yet, so the
 * client refreshes its map and retries). Immutable; rebuilt on every configuration change. Lookups are two array reads.
 */
public final class SlotRouter
{
    private static final short SELF = -2;

    private final short[] targetByHashSlot = new short[ClusterState.HASH_SLOT_COUNT];
    private final byte[][] addresses;
    private final byte[] selfAddress;
    private final long epoch;

    private SlotRouter(final byte[][] addresses, final byte[] selfAddress, final long epoch)
    {
        this.addresses = addresses;
        this.selfAddress = selfAddress;
        this.epoch = epoch;
    }

    /**
     * The routing of {@code state} for node {@code localNodeId}.
     *
     * @param selfAddress this node's {@code host:controlPort}, named when it cannot serve a slot it should.
     */
    public static SlotRouter of(final ClusterState state, final int localNodeId, final String selfAddress)
    {
        final SlotRouter r = new SlotRouter(new byte[state.members().size()][], utf8(selfAddress), state.epoch());
        for (int i = 0; i < state.members().size(); i++)
        {
            final ClusterMember m = state.members().get(i);
            r.addresses[i] = utf8(m.host() + ':' + m.controlPort());
        }
        Arrays.fill(r.targetByHashSlot, (short)-1);
        for (final SlotRange range : state.ranges())
        {
            final short target;
            if (range.primary() == localNodeId)
            {
                target = range.state() == SlotRange.State.FENCED ? SELF : (short)-1;
            }
            else
            {
                final short index = indexOf(state, range.primary());
                target = index < 0 ? SELF : index;
            }
            Arrays.fill(r.targetByHashSlot, range.firstSlot(), range.lastSlot() + 1, target);
        }
        if (state.ranges().isEmpty())
        {
            Arrays.fill(r.targetByHashSlot, SELF); // no layout yet: nothing is served, clients retry
        }
        return r;
    }

    /** A router for a single node serving every slot. */
    public static SlotRouter singleNode()
    {
        final SlotRouter r = new SlotRouter(new byte[0][], new byte[0], 0);
        Arrays.fill(r.targetByHashSlot, (short)-1);
        return r;
    }

    private static short indexOf(final ClusterState state, final int nodeId)
    {
        for (int i = 0; i < state.members().size(); i++)
        {
            if (state.members().get(i).nodeId() == nodeId)
            {
                return (short)i;
            }
        }
        return -1;
    }

    private static byte[] utf8(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** True when this node serves {@code hashSlot} now. */
    public boolean isLocal(final int hashSlot)
    {
        return targetByHashSlot[hashSlot] == -1;
    }

    /** Where a request for {@code hashSlot} goes instead, as {@code host:controlPort} in UTF-8 (shared: do not modify). */
    public byte[] ownerAddress(final int hashSlot)
    {
        final int target = targetByHashSlot[hashSlot];
        return target >= 0 ? addresses[target] : selfAddress;
    }

    /** This node's {@code host:controlPort} in UTF-8 (shared: do not modify). */
    public byte[] selfAddress()
    {
        return selfAddress;
    }

    /** The configuration epoch this routing comes from. */
    public long epoch()
    {
        return epoch;
    }
}
