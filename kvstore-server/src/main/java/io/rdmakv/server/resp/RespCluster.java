package io.rdmakv.server.resp;

import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Redis Cluster's view of the node's cluster map: the {@code CLUSTER} commands, and the redirects of key commands
 * ({@code -MOVED <slot> <host>:<resp port>} of the range's primary, {@code -CROSSSLOT} for keys of several slots in a
 * cluster). The slot is Redis Cluster's ({@link KeyHash#hashSlot}), the map the node's newest ({@link
 * RespNode#clusterState}), the addresses the advertised host and each member's RESP port. A node id is shown as 40
 * hex digits, as Redis's are. Event loop only; reads the map, never changes it.
 */
final class RespCluster
{
    private final RespNode node;

    RespCluster(final RespNode node)
    {
        this.node = node;
    }

    /** Redis's form of node {@code id}: 40 hex digits. */
    static String nodeName(final int id)
    {
        return String.format(Locale.ROOT, "%040x", id);
    }

    /**
     * The redirect or refusal for a command on {@code keys} (positions {@code first}, then every {@code step}, to
     * the end or {@code last}), or null when this node serves them: it is the primary of their one slot.
     */
    RespReply route(final byte[][] args, final int first, final int last, final int step)
    {
        if (first <= 0)
        {
            return null;
        }
        final int end = last < 0 ? args.length + last : last;
        int hashSlot = -1;
        for (int i = first; i <= end && i < args.length; i += step)
        {
            final int s = KeyHash.hashSlot(args[i]);
            if (hashSlot >= 0 && s != hashSlot && node.clustered())
            {
                return RespReply.error("CROSSSLOT Keys in request don't hash to the same slot");
            }
            hashSlot = s;
        }
        if (hashSlot < 0)
        {
            return null;
        }
        return redirect(hashSlot, true);
    }

    /**
     * The first hash slot from {@code from} on whose range this node is the primary of in its newest map, or -1
     * (SCAN: a Redis Cluster client scans each master for the slots it serves).
     */
    int nextLocalSlot(final int from)
    {
        int next = -1;
        for (final SlotRange range : node.clusterState().ranges())
        {
            if (range.primary() == node.nodeId() && range.lastSlot() >= from)
            {
                final int candidate = Math.max(from, range.firstSlot());
                next = next < 0 ? candidate : Math.min(next, candidate);
            }
        }
        return next;
    }

    /** The node answered WRONG_NODE for {@code key}: {@code -MOVED} to the slot's primary in the newest map. */
    RespReply wrongNode(final byte[] key)
    {
        final RespReply moved = redirect(KeyHash.hashSlot(key), false);
        return moved != null ? moved : RespReply.error("TRYAGAIN this node does not serve the key's slot now; " +
            "retry");
    }

    /**
     * {@code -MOVED} when another node is the slot's primary, or (when {@code selfIsFine}) null when this one is;
     * {@code -CLUSTERDOWN} when no node serves it. Without {@code selfIsFine} a slot of this node is redirected to
     * this node (the client retries after the map changed, as the native client does on WRONG_NODE).
     */
    private RespReply redirect(final int hashSlot, final boolean selfIsFine)
    {
        final ClusterState state = node.clusterState();
        if (state.ranges().isEmpty())
        {
            return RespReply.error("CLUSTERDOWN Hash slot not served");
        }
        final SlotRange range = state.rangeOf(hashSlot);
        if (range.primary() == node.nodeId() && selfIsFine)
        {
            return null;
        }
        final String address = respAddress(state, range.primary());
        if (address == null)
        {
            return RespReply.error("CLUSTERDOWN Hash slot " + hashSlot + " is served by node " + range.primary() +
                ", which serves no RESP port");
        }
        return RespReply.error("MOVED " + hashSlot + " " + address);
    }

    /** {@code host:port} of a member's RESP port, or null when it has none. */
    private String respAddress(final ClusterState state, final int nodeId)
    {
        final ClusterMember m = state.member(nodeId);
        if (nodeId == node.nodeId())
        {
            return (m == null ? node.advertisedHost() : m.host()) + ":" + node.respPort();
        }
        return m == null || m.respPort() == 0 ? null : m.host() + ":" + m.respPort();
    }

    /** CLUSTER KEYSLOT | MYID | INFO | SLOTS | SHARDS | NODES. */
    RespReply command(final byte[][] args)
    {
        final String sub = CommandTable.lower(args[1]);
        final ClusterState state = node.clusterState();
        return switch (sub)
        {
            case "keyslot" -> args.length == 3 ? RespReply.integer(KeyHash.hashSlot(args[2])) : wrongArgs(sub);
            case "myid" -> args.length == 2 ? RespReply.bulk(nodeName(node.nodeId())) : wrongArgs(sub);
            case "info" -> args.length == 2 ? RespReply.bulk(info(state, node.failedNodes())) : wrongArgs(sub);
            case "slots" -> args.length == 2 ? clusterSlotsReply(state, node.failedNodes()) : wrongArgs(sub);
            case "shards" -> args.length == 2 ? shards(state, node.failedNodes()) : wrongArgs(sub);
            case "nodes" -> args.length == 2 ? RespReply.bulk(nodes(state, node.failedNodes())) : wrongArgs(sub);
            default -> RespReply.error("ERR unknown subcommand '" + new String(args[1], StandardCharsets.UTF_8) +
                "'. Try CLUSTER HELP.");
        };
    }

    private static RespReply wrongArgs(final String sub)
    {
        return RespReply.error("ERR wrong number of arguments for 'cluster|" + sub + "' command");
    }

    /** Redis's fields; a slot whose primary the cluster declared failed counts in {@code cluster_slots_fail}. */
    private String info(final ClusterState state, final Set<Integer> failed)
    {
        int assigned = 0;
        int failing = 0;
        final Set<Integer> primaries = new java.util.HashSet<>();
        for (final SlotRange r : state.ranges())
        {
            final int n = r.lastSlot() - r.firstSlot() + 1;
            assigned += n;
            failing += failed.contains(r.primary()) ? n : 0;
            primaries.add(r.primary());
        }
        final boolean ok = assigned == ClusterState.HASH_SLOT_COUNT && failing == 0;
        return "cluster_enabled:1\r\ncluster_state:" + (ok ? "ok" : "fail") + "\r\ncluster_slots_assigned:" +
            assigned + "\r\ncluster_slots_ok:" + (assigned - failing) + "\r\ncluster_slots_pfail:0\r\n" +
            "cluster_slots_fail:" + failing + "\r\n" +
            "cluster_known_nodes:" + Math.max(1, state.members().size()) + "\r\ncluster_size:" + primaries.size() +
            "\r\ncluster_current_epoch:" + state.epoch() + "\r\ncluster_my_epoch:" + state.epoch() + "\r\n";
    }

    /** One entry per range: first, last, the primary, then the backups with a RESP port (a failed one left out, as Redis). */
    private RespReply clusterSlotsReply(final ClusterState state, final Set<Integer> failed)
    {
        final List<RespReply> out = new ArrayList<>();
        for (final SlotRange r : state.ranges())
        {
            final RespReply primary = nodeEntry(state, r.primary());
            if (primary == null)
            {
                continue; // a primary clients cannot reach over RESP: its slots are not covered here
            }
            final List<RespReply> entry = new ArrayList<>(List.of(RespReply.integer(r.firstSlot()),
                RespReply.integer(r.lastSlot()), primary));
            for (final int backup : r.backups())
            {
                final RespReply b = failed.contains(backup) ? null : nodeEntry(state, backup);
                if (b != null)
                {
                    entry.add(b);
                }
            }
            out.add(RespReply.array(entry));
        }
        return RespReply.array(out);
    }

    private RespReply nodeEntry(final ClusterState state, final int nodeId)
    {
        final String address = respAddress(state, nodeId);
        if (address == null)
        {
            return null;
        }
        final int colon = address.lastIndexOf(':');
        return RespReply.array(List.of(RespReply.bulk(address.substring(0, colon)),
            RespReply.integer(Integer.parseInt(address.substring(colon + 1))), RespReply.bulk(nodeName(nodeId))));
    }

    /**
     * Per primary: its slot ranges and the nodes holding them (the primary, then each backup); then, as Redis lists a
     * master without slots, each member that holds no range (a new node, or a failed one after its ranges moved) as a
     * shard of its own with no slots.
     */
    private RespReply shards(final ClusterState state, final Set<Integer> failed)
    {
        final Map<Integer, List<SlotRange>> byPrimary = new LinkedHashMap<>();
        for (final SlotRange r : state.ranges())
        {
            byPrimary.computeIfAbsent(r.primary(), k -> new ArrayList<>()).add(r);
        }
        final List<RespReply> out = new ArrayList<>();
        for (final Map.Entry<Integer, List<SlotRange>> e : byPrimary.entrySet())
        {
            final List<RespReply> rangeBounds = new ArrayList<>();
            final java.util.Set<Integer> backups = new java.util.TreeSet<>();
            for (final SlotRange r : e.getValue())
            {
                rangeBounds.add(RespReply.integer(r.firstSlot()));
                rangeBounds.add(RespReply.integer(r.lastSlot()));
                backups.addAll(r.backups());
            }
            final List<RespReply> nodes = new ArrayList<>();
            addShardNode(nodes, state, e.getKey(), "master", failed);
            for (final int b : backups)
            {
                addShardNode(nodes, state, b, "replica", failed);
            }
            out.add(RespReply.map(List.of(RespReply.bulk("slots"), RespReply.array(rangeBounds), RespReply.bulk("nodes"),
                RespReply.array(nodes))));
        }
        for (final ClusterMember m : state.members())
        {
            if (state.ranges().stream().noneMatch(r -> r.primary() == m.nodeId() || r.backups().contains(m.nodeId())))
            {
                final List<RespReply> nodes = new ArrayList<>();
                addShardNode(nodes, state, m.nodeId(), "master", failed);
                if (!nodes.isEmpty())
                {
                    out.add(RespReply.map(List.of(RespReply.bulk("slots"), RespReply.array(List.of()),
                        RespReply.bulk("nodes"), RespReply.array(nodes))));
                }
            }
        }
        return RespReply.array(out);
    }

    /** A shard's node; {@code health} is Redis's: {@code online}, or {@code failed} for a node declared failed. */
    private void addShardNode(final List<RespReply> nodes, final ClusterState state, final int nodeId,
        final String role, final Set<Integer> failed)
    {
        final String address = respAddress(state, nodeId);
        if (address == null)
        {
            return;
        }
        final int colon = address.lastIndexOf(':');
        nodes.add(RespReply.map(List.of(RespReply.bulk("id"), RespReply.bulk(nodeName(nodeId)),
            RespReply.bulk("port"), RespReply.integer(Integer.parseInt(address.substring(colon + 1))),
            RespReply.bulk("ip"), RespReply.bulk(address.substring(0, colon)),
            RespReply.bulk("endpoint"), RespReply.bulk(address.substring(0, colon)),
            RespReply.bulk("role"), RespReply.bulk(role),
            RespReply.bulk("replication-offset"), RespReply.integer(0),
            RespReply.bulk("health"), RespReply.bulk(failed.contains(nodeId) ? "failed" : "online"))));
    }

    /**
     * CLUSTER NODES: one line per member with a RESP port, each a master of the ranges it is primary of; a member the
     * cluster declared failed has the flag {@code fail} and the link state {@code disconnected}, as Redis shows a node
     * it marked FAIL, the others {@code connected}.
     */
    private String nodes(final ClusterState state, final Set<Integer> failed)
    {
        final Map<Integer, StringBuilder> hashSlotsOf = new LinkedHashMap<>();
        for (final SlotRange r : state.ranges())
        {
            hashSlotsOf.computeIfAbsent(r.primary(), k -> new StringBuilder()).append(' ')
                .append(r.firstSlot() == r.lastSlot() ? Integer.toString(r.firstSlot()) :
                    r.firstSlot() + "-" + r.lastSlot());
        }
        final java.util.Set<Integer> ids = new java.util.TreeSet<>(hashSlotsOf.keySet());
        state.members().forEach(m -> ids.add(m.nodeId()));
        final StringBuilder sb = new StringBuilder();
        for (final int id : ids)
        {
            final String address = respAddress(state, id);
            if (address == null)
            {
                continue;
            }
            final ClusterMember m = state.member(id);
            sb.append(nodeName(id)).append(' ').append(address).append('@')
                .append(m == null ? 0 : m.controlPort()).append(' ')
                .append(id == node.nodeId() ? "myself,master" : "master").append(failed.contains(id) ? ",fail" : "")
                .append(" - 0 0 ").append(state.epoch())
                .append(failed.contains(id) ? " disconnected" : " connected").append(hashSlotsOf.getOrDefault(id, new StringBuilder())).append('\n');
        }
        return sb.toString();
    }
}
