package io.rdmakv.client.internal;

import io.rdmakv.client.HostPort;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.layout.SlotOwnershipTable;
import io.rdmakv.protocol.wire.ClusterNode;
import io.rdmakv.protocol.wire.MemberAddress;
import io.rdmakv.protocol.wire.Welcome;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which node is the primary of which cluster hash slot, and at which range epoch, as the last WELCOME said.
 * Immutable: a refresh builds a new map. {@link #epoch()} is the configuration epoch the map comes from (0 for a
 * static map); a client never replaces a map by one with a lower epoch.
 *
 * <p>What a request needs of it is one <b>route</b> per hash slot: a {@code long} holding the primary's owner index
 * (its place among the map's primaries, plus one; 0 = no primary) above the range's epoch (48 bits, as an ownership
 * word holds it). A map has few distinct routes (one per primary and epoch, however many ranges), kept in a small
 * array that stays in the cache; slots name theirs by a {@code short} per slot, or not at all when every slot has
 * the same route (one primary at one epoch). So routing a request reads no per-slot table of 128 KiB: it reads a
 * 32 KiB one or none. Each owner index also has a place for the primary's {@link NodeSession} once the router found
 * it usable in this map ({@link #keep}, {@link #liveSession}), so a routed request needs no session lookup by node
 * id either.
 * <pre>
 *   route = (ownerIndex + 1) &lt;&lt; 48 | rangeEpoch        0 = unassigned slot
 *   route(slot) = routes.length == 1 ? routes[0] : routes[routeOfSlot[slot]]
 * </pre>
 */
final class ClusterMap
{
    private static final int NO_NODE = -1;
    private static final int EPOCH_BITS = 48;
    private static final long EPOCH_MASK = (1L << EPOCH_BITS) - 1;
    /** A route with no primary (an unassigned slot). */
    static final long NO_ROUTE = 0;
    private static final VarHandle SESSIONS = MethodHandles.arrayElementVarHandle(NodeSession[].class);

    /** The distinct routes of the map; a slot not named by any range has {@link #NO_ROUTE}. */
    private final long[] routes;
    /** Per slot, its index in {@link #routes}; null when the map has a single route. */
    private final short[] routeOfSlot;
    /** Node id of each owner index. */
    private final int[] ownerIds;
    /** Per owner index, the session found usable in this map (written by the router, read by any thread). */
    private final NodeSession[] sessions;
    private final Map<Integer, HostPort> controlAddresses;
    /** Every member of a replicated cluster (primary of a range or not): reached for STATS, never routed to. */
    private final Map<Integer, HostPort> memberAddresses;
    private final long epoch;

    private ClusterMap(final long epoch, final int[] nodeOfSlot, final long[] epochOfSlot,
        final Map<Integer, HostPort> controlAddresses, final Map<Integer, HostPort> memberAddresses)
    {
        this.epoch = epoch;
        this.controlAddresses = controlAddresses;
        this.memberAddresses = memberAddresses;
        final List<Integer> owners = new ArrayList<>();
        final Map<Integer, Integer> ownerIndex = new HashMap<>();
        final Map<Long, Integer> routeIndex = new HashMap<>();
        final List<Long> distinct = new ArrayList<>();
        final short[] byHashSlot = new short[nodeOfSlot.length];
        long previous = -1;
        for (int hashSlot = 0; hashSlot < nodeOfSlot.length; hashSlot++)
        {
            long route = NO_ROUTE;
            if (nodeOfSlot[hashSlot] != NO_NODE)
            {
                final int owner = ownerIndex.computeIfAbsent(nodeOfSlot[hashSlot], id ->
                {
                    owners.add(id);
                    return owners.size() - 1;
                });
                route = (long)(owner + 1) << EPOCH_BITS | epochOfSlot[hashSlot];
            }
            if (route == previous)
            {
                byHashSlot[hashSlot] = byHashSlot[hashSlot - 1]; // ranges are runs of slots: most slots repeat the one before
                continue;
            }
            previous = route;
            final Integer known = routeIndex.putIfAbsent(route, distinct.size());
            if (known == null)
            {
                byHashSlot[hashSlot] = (short)distinct.size();
                distinct.add(route);
            }
            else
            {
                byHashSlot[hashSlot] = known.shortValue();
            }
        }
        this.routes = distinct.stream().mapToLong(Long::longValue).toArray();
        this.routeOfSlot = routes.length == 1 ? null : byHashSlot;
        this.ownerIds = owners.stream().mapToInt(Integer::intValue).toArray();
        this.sessions = new NodeSession[ownerIds.length];
    }

    /**
     * The map in {@code welcome}; a node that sends no map (a single node) owns every slot, reachable where it
     * answered.
     */
    static ClusterMap from(final Welcome welcome, final HostPort answeredAt)
    {
        final int[] nodeOfSlot = new int[ProtocolLimits.HASH_SLOT_COUNT];
        final long[] epochOfSlot = new long[ProtocolLimits.HASH_SLOT_COUNT];
        final Map<Integer, HostPort> controlAddresses = new HashMap<>();
        final Map<Integer, HostPort> memberAddresses = new HashMap<>();
        final List<ClusterNode> nodes = welcome.clusterMap();
        if (nodes.isEmpty())
        {
            Arrays.fill(nodeOfSlot, welcome.nodeId());
            controlAddresses.put(welcome.nodeId(), answeredAt);
            return new ClusterMap(welcome.clusterEpoch(), nodeOfSlot, epochOfSlot, controlAddresses, memberAddresses);
        }
        Arrays.fill(nodeOfSlot, NO_NODE);
        for (final ClusterNode node : nodes)
        {
            if (node.rangeEpoch() > SlotOwnershipTable.MAX_EPOCH)
            {
                // No ownership word can say it (no GET could be trusted one-sided), nor can a route hold it.
                throw KvException.of(KvError.PROTOCOL_ERROR, "node " + welcome.nodeId() + " at " + answeredAt +
                    " sent a map whose range " + node.firstSlot() + "-" + node.lastSlot() + " has epoch " +
                    node.rangeEpoch() + ", above the largest an ownership word holds (" +
                    SlotOwnershipTable.MAX_EPOCH + ")");
            }
            Arrays.fill(nodeOfSlot, node.firstSlot(), node.lastSlot() + 1, node.nodeId());
            Arrays.fill(epochOfSlot, node.firstSlot(), node.lastSlot() + 1, node.rangeEpoch());
            controlAddresses.put(node.nodeId(), node.nodeId() == welcome.nodeId() ?
                answeredAt : new HostPort(reachableHost(node.host(), answeredAt), node.controlPort()));
        }
        // Every member, those that are primary of nothing too: reachable for STATS, but neither routed to nor asked
        // for a newer map (a member declared failed stays one until it is removed).
        for (final MemberAddress member : welcome.members())
        {
            memberAddresses.put(member.nodeId(), member.nodeId() == welcome.nodeId() ?
                answeredAt : new HostPort(reachableHost(member.host(), answeredAt), member.controlPort()));
        }
        return new ClusterMap(welcome.clusterEpoch(), nodeOfSlot, epochOfSlot, controlAddresses, memberAddresses);
    }

    /** {@code hashSlot}'s route: its primary's owner index and range epoch in one word ({@link #NO_ROUTE}: none). */
    long route(final int hashSlot)
    {
        final short[] byHashSlot = routeOfSlot;
        return byHashSlot == null ? routes[0] : routes[byHashSlot[hashSlot]];
    }

    /** The range epoch in {@code route} (0 in a static map's, and in {@link #NO_ROUTE}). */
    static long rangeEpochOf(final long route)
    {
        return route & EPOCH_MASK;
    }

    /** The owner index in {@code route}, or -1 for {@link #NO_ROUTE}. */
    static int ownerIndexOf(final long route)
    {
        return (int)(route >>> EPOCH_BITS) - 1;
    }

    /** The node id of owner index {@code ownerIndex} (from {@link #ownerIndexOf}). */
    int nodeIdOf(final int ownerIndex)
    {
        return ownerIds[ownerIndex];
    }

    /**
     * Route {@code requestSlot} by this map: its range epoch from the key's route (what the ownership check compares with).
     *
     * @return the owner index of the key's primary, -1 when the map assigns its hash slot to no node.
     */
    int route(final RequestSlot requestSlot)
    {
        final long route = route(requestSlot.hashedKey.hashSlot());
        requestSlot.rangeEpoch = rangeEpochOf(route);
        return ownerIndexOf(route);
    }

    /** {@link #route(RequestSlot)} of a key whose hash slot must have a primary (a request to send now). */
    int assignedRoute(final RequestSlot requestSlot)
    {
        final int owner = route(requestSlot);
        if (owner < 0)
        {
            throw KvException.of(KvError.CONNECTION_FAILED, "the cluster map assigns no node to hash slot " +
                requestSlot.hashedKey.hashSlot());
        }
        return owner;
    }

    /** The session this map keeps for owner index {@code ownerIndex} if it is still live, else null (any thread). */
    NodeSession liveSession(final int ownerIndex)
    {
        final NodeSession session = session(ownerIndex);
        return session != null && session.isAlive() ? session : null;
    }

    /**
     * Keep {@code session} for {@code ownerIndex} if it is live and this map places it at its node's address
     * ({@link NodeSession#usableIn}): requests routed by this map then use it without asking again.
     *
     * @return whether it was kept.
     */
    boolean keep(final int ownerIndex, final NodeSession session)
    {
        if (session == null || !session.usableIn(this, ownerIds[ownerIndex]))
        {
            return false;
        }
        SESSIONS.setRelease(sessions, ownerIndex, session);
        return true;
    }

    /** The session kept for owner index {@code ownerIndex}, live or not, or null (any thread). */
    NodeSession session(final int ownerIndex)
    {
        return (NodeSession)SESSIONS.getAcquire(sessions, ownerIndex);
    }

    /** Distinct routes of the map (what routing a request reads besides at most one {@code short} per slot). */
    int routeCount()
    {
        return routes.length;
    }

    /** The node owning {@code hashSlot}, or -1 when the map leaves it unassigned. */
    int ownerOf(final int hashSlot)
    {
        final int owner = ownerIndexOf(route(hashSlot));
        return owner < 0 ? NO_NODE : ownerIds[owner];
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
        return rangeEpochOf(route(hashSlot));
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
