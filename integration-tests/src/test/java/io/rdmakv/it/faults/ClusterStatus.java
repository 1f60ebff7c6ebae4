package io.rdmakv.it.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The committed cluster state as one node reports it ({@code rdmakv cluster status --json}), parsed for the fault
 * tests: the coordination leader, the voters, which nodes are declared failed, the ranges with their primaries and
 * backups.
 */
record ClusterStatus(long epoch, int leader, List<Integer> members, List<Integer> failed, List<Range> ranges,
    List<Integer> voters, String json)
{
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One range of the map. */
    record Range(int first, int last, long epoch, int primary, List<Integer> backups, List<Integer> learners,
        String state)
    {
        boolean contains(final int hashSlot)
        {
            return hashSlot >= first && hashSlot <= last;
        }
    }

    static ClusterStatus parse(final String json)
    {
        try
        {
            final JsonNode root = JSON.readTree(json);
            final List<Integer> members = new ArrayList<>();
            final List<Integer> failed = new ArrayList<>();
            for (final JsonNode n : root.path("nodes"))
            {
                members.add(n.path("id").asInt());
                if (n.path("failed").asBoolean())
                {
                    failed.add(n.path("id").asInt());
                }
            }
            final List<Range> ranges = new ArrayList<>();
            for (final JsonNode r : root.path("ranges"))
            {
                ranges.add(new Range(r.path("from").asInt(), r.path("to").asInt(), r.path("epoch").asLong(),
                    r.path("primary").asInt(), ints(r.path("backups")), ints(r.path("learners")),
                    r.path("state").asText()));
            }
            final List<Integer> voters = new ArrayList<>();
            for (final JsonNode v : root.path("voters"))
            {
                voters.add(v.path("id").asInt());
            }
            return new ClusterStatus(root.path("epoch").asLong(),
                root.path("leader").isInt() ? root.path("leader").asInt() : -1, members, failed, ranges, voters, json);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("not a status document: " + json, ex);
        }
    }

    /** Whether {@code nodeId} is declared failed. */
    boolean isFailed(final int nodeId)
    {
        return failed.contains(nodeId);
    }

    /** Whether any range has {@code nodeId} as primary, backup or learner. */
    boolean holdsAnything(final int nodeId)
    {
        return ranges.stream().anyMatch(r -> r.primary() == nodeId || r.backups().contains(nodeId) ||
            r.learners().contains(nodeId));
    }

    /** The range starting at {@code firstSlot}, or null. */
    Range rangeAt(final int firstSlot)
    {
        return ranges.stream().filter(r -> r.first() == firstSlot).findFirst().orElse(null);
    }

    /** The first range {@code nodeId} is primary of. */
    Range rangeOf(final int nodeId)
    {
        return ranges.stream().filter(r -> r.primary() == nodeId).findFirst()
            .orElseThrow(() -> new IllegalStateException("node " + nodeId + " is primary of nothing: " + json));
    }

    private static List<Integer> ints(final JsonNode array)
    {
        final List<Integer> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asInt()));
        return out;
    }

    @Override
    public String toString()
    {
        return json;
    }
}
