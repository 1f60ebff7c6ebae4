package io.rdmakv.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvStats;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code rdmakv stats --json}: one document, typed.
 *
 * <pre>
 *   {"nodes": [{"id": 1, "version": "0.1.0", "uptime.ms": 5120, "transport": "tcp", "pool.keys": 1, ...,
 *               "latency": {"get": {"count": 1, "meanUs": 152.9, "p50Us": 152.9, "p99Us": 152.9, "maxUs": 152.9},
 *                           "put": {"count": 0}}},
 *              {"id": 2, "error": "timed out after 3000 ms"}],
 *    "client": {"gets": 1, ...}}
 * </pre>
 *
 * Every value a node reports as an integer is a JSON number, every other one a string; each {@code latency.<op>}
 * summary becomes an object of numbers in microseconds ({@code p50Us}, {@code p99Us}: the upper bound of the histogram
 * bucket holding the quantile); a node that did not answer has only {@code id} and {@code error}.
 */
final class StatsJson
{
    private static final String LATENCY = "latency.";
    private static final Pattern SUMMARY = Pattern.compile(
        "count=(\\d+)(?: mean=([0-9.]+)us p50<=([0-9.]+)us p99<=([0-9.]+)us max=([0-9.]+)us)?");

    private StatsJson()
    {
    }

    static String render(final KvStats stats)
    {
        final ObjectNode root = Json.mapper().createObjectNode();
        final ArrayNode nodes = root.putArray("nodes");
        new TreeMap<>(stats.nodes()).forEach((id, values) -> node(nodes.addObject().put("id", id), values));
        final ObjectNode client = root.putObject("client");
        for (final ClientCounter c : ClientCounter.values())
        {
            client.put(c.label(), stats.client(c));
        }
        return Json.pretty(root);
    }

    private static void node(final ObjectNode node, final Map<String, String> values)
    {
        ObjectNode latency = null;
        for (final Map.Entry<String, String> e : values.entrySet())
        {
            final String name = e.getKey();
            final String value = e.getValue();
            if (name.startsWith(LATENCY))
            {
                latency = latency == null ? node.putObject("latency") : latency;
                latency(latency.putObject(name.substring(LATENCY.length())), value);
            }
            else if (value.matches("-?\\d{1,18}"))
            {
                node.put(name, Long.parseLong(value));
            }
            else
            {
                node.put(name, value);
            }
        }
    }

    /** {@code count=N mean=Xus p50<=Yus p99<=Zus max=Wus} (or {@code count=0}) as numbers. */
    static void latency(final ObjectNode op, final String summary)
    {
        final Matcher m = SUMMARY.matcher(summary.trim());
        if (!m.matches())
        {
            // A node of another version: say so rather than guess.
            op.put("unparsed", summary);
            return;
        }
        op.put("count", Long.parseLong(m.group(1)));
        if (m.group(2) != null)
        {
            op.put("meanUs", Double.parseDouble(m.group(2))).put("p50Us", Double.parseDouble(m.group(3)))
                .put("p99Us", Double.parseDouble(m.group(4))).put("maxUs", Double.parseDouble(m.group(5)));
        }
    }
}
