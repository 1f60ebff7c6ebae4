package io.rdmakv.cli.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.cli.Json;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Replica lag for {@code rdmakv cluster status}: only a range's primary knows how far its backups are behind, so the
 * status asks every live member for its {@code lag} (writes sent to each replica, answered, outstanding, last answer)
 * and adds one row per primary and replica: a table under the text status, a {@code "lag"} array in the JSON.
 */
final class ReplicaLagView
{
    private ReplicaLagView()
    {
    }

    /** One primary's answer, or why there is none. */
    record NodeLag(int nodeId, String json, String error)
    {
    }

    /**
     * Ask every live member of {@code statusJson} for its lag through {@code ask} (node control address to the
     * {@code lag} JSON, or an exception).
     */
    static List<NodeLag> collect(final String statusJson, final Function<String, String> ask)
    {
        final List<NodeLag> out = new ArrayList<>();
        for (final JsonNode n : read(statusJson).path("nodes"))
        {
            final int id = n.path("id").asInt();
            if (n.path("failed").asBoolean())
            {
                out.add(new NodeLag(id, null, "declared failed"));
                continue;
            }
            final String address = n.path("host").asText() + ":" + n.path("controlPort").asInt();
            try
            {
                out.add(new NodeLag(id, ask.apply(address), null));
            }
            catch (final RuntimeException ex)
            {
                out.add(new NodeLag(id, null, ex.getMessage()));
            }
        }
        return out;
    }

    /** {@code statusJson} with a {@code "lag"} array: one object per primary and replica (and per unreachable node). */
    static String json(final String statusJson, final List<NodeLag> lags)
    {
        final ObjectNode root = (ObjectNode)read(statusJson);
        final ArrayNode rows = root.putArray("lag");
        for (final NodeLag l : lags)
        {
            if (l.json() == null)
            {
                rows.addObject().put("primary", l.nodeId()).put("error", l.error());
                continue;
            }
            for (final JsonNode r : read(l.json()).path("replicas"))
            {
                final ObjectNode row = rows.addObject().put("primary", l.nodeId());
                row.put("replica", r.path("node").asInt());
                row.set("ranges", r.path("ranges"));
                row.put("sent", r.path("sent").asLong()).put("acked", r.path("acked").asLong())
                    .put("outstanding", r.path("outstanding").asLong());
                row.set("lastAckAgoMs", r.path("lastAckAgoMs").isNumber() ? r.path("lastAckAgoMs") :
                    row.nullNode());
            }
        }
        return Json.pretty(root);
    }

    /** The lag table printed under the text status. */
    static String text(final List<NodeLag> lags)
    {
        final StringBuilder b = new StringBuilder("replica lag (each primary's replication: writes sent, answered, " +
            "outstanding)\n");
        b.append(String.format("%-8s %-8s %-24s %-10s %-10s %-12s %s%n", "primary", "replica", "ranges", "sent",
            "acked", "outstanding", "last answer"));
        for (final NodeLag l : lags)
        {
            if (l.json() == null)
            {
                b.append(String.format("%-8d (%s)%n", l.nodeId(), l.error()));
                continue;
            }
            for (final JsonNode r : read(l.json()).path("replicas"))
            {
                final List<String> ranges = new ArrayList<>();
                r.path("ranges").forEach(x -> ranges.add(x.path("from").asInt() + "-" + x.path("to").asInt() +
                    (x.path("role").asText().equals("LEARNER") ? " learner" : "")));
                final long ago = r.path("lastAckAgoMs").asLong(-1);
                b.append(String.format("%-8d %-8d %-24s %-10d %-10d %-12d %s%n", l.nodeId(), r.path("node").asInt(),
                    ranges.isEmpty() ? "-" : String.join(",", ranges), r.path("sent").asLong(),
                    r.path("acked").asLong(), r.path("outstanding").asLong(), ago < 0 ? "never" : ago + " ms ago"));
            }
        }
        return b.toString();
    }

    private static JsonNode read(final String json)
    {
        return Json.read(json);
    }
}
