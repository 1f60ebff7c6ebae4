package io.rdmakv.server.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.List;

/**
 * The JSON the node writes for operators (ADMIN {@code status json}, {@code lag} and every command's json form; the
 * {@code backup} and {@code restore} summaries): one {@link ObjectMapper} and the shapes several answers share.
 * Numbers are numbers, lists are arrays, states are their enum names; a value that does not apply is {@code null}.
 */
public final class ClusterJson
{
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ClusterJson()
    {
    }

    /**
     * {@code value} (records, lists, maps, enums) as one line of JSON.
     *
     * @throws IllegalStateException when Jackson cannot write it (a programming error: the shapes are plain records).
     */
    public static String write(final Object value)
    {
        try
        {
            return MAPPER.writeValueAsString(value);
        }
        catch (final JsonProcessingException ex)
        {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON", ex);
        }
    }

    /**
     * A slot range: slots {@code from} to {@code to} inclusive, its epoch, primary, in-sync backups in promotion
     * order, catching-up learners and state.
     */
    public record Range(int from, int to, long epoch, int primary, List<Integer> backups, List<Integer> learners,
        SlotRange.State state)
    {
        public static Range of(final SlotRange r)
        {
            return new Range(r.firstSlot(), r.lastSlot(), r.epoch(), r.primary(), r.backups(), r.learners(),
                r.state());
        }

        public static List<Range> of(final List<SlotRange> ranges)
        {
            return ranges.stream().map(Range::of).toList();
        }
    }

    /** A slot range a replica serves for this primary, and as what. */
    public record ReplicaRange(int from, int to, ReplicaRole role)
    {
    }

    /** What a replica is for a range: an in-sync backup, or a learner catching up (a move's target). */
    public enum ReplicaRole
    {
        BACKUP,
        LEARNER
    }

    /** The {@code lag} answer: this node and each replica it sends writes to. */
    public record Lag(int node, List<ReplicaLag> replicas)
    {
    }

    /**
     * One replica's lag as its primary sees it: client writes sent, acknowledged, outstanding, and milliseconds since
     * the last acknowledgement ({@code null}: none yet).
     */
    public record ReplicaLag(int node, List<ReplicaRange> ranges, long sent, long acked, long outstanding,
        Long lastAckAgoMs)
    {
    }
}
