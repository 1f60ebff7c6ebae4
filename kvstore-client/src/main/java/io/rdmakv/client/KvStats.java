package io.rdmakv.client;

import java.util.Map;

/**
 * A snapshot of statistics: each node's counters as it reported them (STATS), and this client's own counters.
 *
 * @param nodes  per node id, the node's {@code name=value} counters in its order.
 * @param client this client's counters by {@link ClientCounter}.
 */
public record KvStats(Map<Integer, Map<String, String>> nodes, Map<ClientCounter, Long> client)
{
    /**
     * Copies both maps, so a snapshot never changes.
     *
     * @param nodes see {@link #nodes()}.
     * @param client see {@link #client()}.
     */
    public KvStats
    {
        nodes = Map.copyOf(nodes);
        client = Map.copyOf(client);
    }

    /**
     * One client counter.
     *
     * @param counter which.
     * @return its value in this snapshot (0 when absent).
     */
    public long client(final ClientCounter counter)
    {
        return client.getOrDefault(counter, 0L);
    }

    /**
     * Text form: one {@code name=value} per line, nodes first (prefixed {@code node.<id>.}), then the client.
     *
     * @return the lines, each ending in a newline.
     */
    public String format()
    {
        final StringBuilder sb = new StringBuilder();
        new java.util.TreeMap<>(nodes).forEach((id, counters) -> counters.forEach(
            (name, value) -> sb.append("node.").append(id).append('.').append(name).append('=').append(value)
                .append('\n')));
        for (final ClientCounter c : ClientCounter.values())
        {
            sb.append("client.").append(c.label()).append('=').append(client(c)).append('\n');
        }
        return sb.toString();
    }
}
