package io.rdmakv.server.config;

import java.util.ArrayList;
import java.util.List;

/**
 * One entry of the static cluster map: which node serves which contiguous range of hash slots, and where its control
 * plane listens. Parsed from {@code cluster.nodes=id@host:controlPort:firstSlot-lastSlot,...}.
 *
 * @param nodeId      the node's id (unique in the map).
 * @param host        host name or address clients connect to.
 * @param controlPort the node's control-plane port.
 * @param firstSlot   first hash slot served, inclusive.
 * @param lastSlot    last hash slot served, inclusive.
 */
public record ClusterNode(int nodeId, String host, int controlPort, int firstSlot, int lastSlot)
{
    /** Hash slots of the cluster (the protocol's KeyHash maps keys to 0..SLOT_COUNT-1). */
    public static final int HASH_SLOT_COUNT = 16_384;

    /** Parse one {@code id@host:port:first-last} entry. */
    public static ClusterNode parse(final String spec)
    {
        final String s = spec.trim();
        final int at = s.indexOf('@');
        final int lastColon = s.lastIndexOf(':');
        final int portColon = lastColon < 0 ? -1 : s.lastIndexOf(':', lastColon - 1);
        final int dash = s.indexOf('-', lastColon + 1);
        if (at <= 0 || portColon <= at + 1 || lastColon <= portColon + 1 || dash < 0)
        {
            throw new ConfigException("cluster.nodes entry '" + s + "' must look like id@host:controlPort:firstSlot-lastSlot");
        }
        final int id = parseInt(s.substring(0, at), "node id", s);
        final String host = s.substring(at + 1, portColon);
        final int port = parseInt(s.substring(portColon + 1, lastColon), "control port", s);
        final int first = parseInt(s.substring(lastColon + 1, dash), "first slot", s);
        final int last = parseInt(s.substring(dash + 1), "last slot", s);
        if (port < 1 || port > 65_535)
        {
            throw new ConfigException("cluster.nodes entry '" + s + "': control port must be 1..65535");
        }
        if (first < 0 || last >= HASH_SLOT_COUNT || first > last)
        {
            throw new ConfigException("cluster.nodes entry '" + s + "': slots must satisfy 0 <= first <= last <= " +
                (HASH_SLOT_COUNT - 1));
        }
        return new ClusterNode(id, host, port, first, last);
    }

    /** Parse a comma-separated list and check ids are unique and slot ranges do not overlap. */
    public static List<ClusterNode> parseList(final String list)
    {
        final List<ClusterNode> nodes = new ArrayList<>();
        for (final String part : list.split(","))
        {
            if (!part.isBlank())
            {
                nodes.add(parse(part));
            }
        }
        for (int i = 0; i < nodes.size(); i++)
        {
            for (int j = i + 1; j < nodes.size(); j++)
            {
                final ClusterNode a = nodes.get(i);
                final ClusterNode b = nodes.get(j);
                if (a.nodeId == b.nodeId)
                {
                    throw new ConfigException("cluster.nodes: node id " + a.nodeId + " appears twice");
                }
                if (a.firstSlot <= b.lastSlot && b.firstSlot <= a.lastSlot)
                {
                    throw new ConfigException("cluster.nodes: slots of node " + a.nodeId + " and node " + b.nodeId +
                        " overlap");
                }
            }
        }
        return List.copyOf(nodes);
    }

    private static int parseInt(final String value, final String what, final String spec)
    {
        try
        {
            return Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException("cluster.nodes entry '" + spec + "': " + what + " '" + value + "' is not a number");
        }
    }
}
