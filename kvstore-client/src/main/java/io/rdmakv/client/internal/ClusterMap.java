package io.rdmakv.client.internal;

import io.rdmakv.client.HostPort;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.wire.ClusterNode;
import io.rdmakv.protocol.wire.MemberAddress;
import io.rdmakv.protocol.wire.Welcome;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which node is the primary of which cluster hash slot, and at which range epoch, as the last WELCOME said.
 * Immutable: a refresh builds a new map. A lookup is an array index, so routing costs nothing on the data path.
 * {@link #epoch()} is the configuration epoch the map comes from (0 for a static map); a client never replaces a map
 * by one with a lower epoch.
 */
final class ClusterMap
{
    private static final int NO_NODE = -1;

    private final int[] ownerByHashSlot = new int[ProtocolLimits.HASH_SLOT_COUNT];
    private final long[] rangeEpochByHashSlot = new long[ProtocolLimits.HASH_SLOT_COUNT];
    private final Map<Integer, HostPort> controlAddresses = new HashMap<>();
    /** Every member of a replicated cluster (primary of a range or not): reached for STATS, never routed to. */
    private final Map<Integer, HostPort> memberAddresses = new HashMap<>();
    private final long epoch;

    private ClusterMap(final long epoch)
    {
        this.epoch = epoch;
        Arrays.fill(ownerByHashSlot, NO_NODE);
    }

    /**
     * The map in {@code welcome}; a node that sends no map (a single node) owns every slot, reachable where it
     * answered.
     */
    static ClusterMap from(final Welcome welcome, final HostPort answeredAt)
    {
        final ClusterMap map = new ClusterMap(welcome.clusterEpoch());
        final List<ClusterNode> nodes = welcome.clusterMap();
        if (nodes.isEmpty())
        {
            Arrays.fill(map.ownerByHashSlot, welcome.nodeId());
            map.controlAddresses.put(welcome.nodeId(), answeredAt);
            return map;
        }
        for (final ClusterNode node : nodes)
        {
            Arrays.fill(map.ownerByHashSlot, node.firstSlot(), node.lastSlot() + 1, node.nodeId());
            Arrays.fill(map.rangeEpochByHashSlot, node.firstSlot(), node.lastSlot() + 1, node.rangeEpoch());
            map.controlAddresses.put(node.nodeId(), node.nodeId() == welcome.nodeId() ?
                answeredAt : new HostPort(reachableHost(node.host(), answeredAt), node.controlPort()));
        }
        // Every member, those that are primary of nothing too: reachable for STATS, but neither routed to nor asked
        // for a newer map (a member declared failed stays one until it is removed).
        for (final MemberAddress member : welcome.members())
        {
            map.memberAddresses.put(member.nodeId(), member.nodeId() == welcome.nodeId() ?
                answeredAt : new HostPort(reachableHost(member.host(), answeredAt), member.controlPort()));
        }
        return map;
    }

    /** The node owning {@code hashSlot}, or -1 when the map leaves it unassigned. */
    int ownerOf(final int hashSlot)
    {
        return ownerByHashSlot[hashSlot];
    }

    /** The configuration epoch of the map (0: a static map that never changes). */
    long epoch()
    {
        return epoch;
    }

    /** True for the map of a replicated cluster, which changes (failover, resharding) while the client runs. */
    boolean changes()
    {
        return epoch > 0;
    }

    /** The epoch of the range holding {@code hashSlot} (0 in a static map). */
    long rangeEpoch(final int hashSlot)
    {
        return rangeEpochByHashSlot[hashSlot];
    }

    /** Every control address of a range's primary (the members that are primary of nothing are left out). */
    java.util.Collection<HostPort> addresses()
    {
        return controlAddresses.values();
    }

    /** The control address of {@code nodeId} (a primary, or any member), or {@code null} when the map names neither. */
    HostPort controlAddress(final int nodeId)
    {
        final HostPort primary = controlAddresses.get(nodeId);
        return primary != null ? primary : memberAddresses.get(nodeId);
    }

    /** Every node the map names: the ranges' primaries and the members that are primary of nothing. */
    java.util.Set<Integer> nodeIds()
    {
        final java.util.Set<Integer> ids = new java.util.TreeSet<>(controlAddresses.keySet());
        ids.addAll(memberAddresses.keySet());
        return ids;
    }

    /** A server bound to the wildcard address names it; the client reaches it where it reached the node that said so. */
    static String reachableHost(final String host, final HostPort answeredAt)
    {
        return host == null || host.isEmpty() || "0.0.0.0".equals(host) || "::".equals(host) || "[::]".equals(host) ?
            answeredAt.host() : host;
    }
}
