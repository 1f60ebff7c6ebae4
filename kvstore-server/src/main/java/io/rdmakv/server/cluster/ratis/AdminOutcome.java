package io.rdmakv.server.cluster.ratis;

import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.server.cluster.ClusterJson;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The json form of a command that changes the cluster ({@code json failover ...}, {@code json rebalance}, ...): whether
 * it was carried out, and the state this node knows once it finished, typed: the epoch, the ranges, the voters, the
 * cut-overs still under way and, for {@code rebalance plan}, the planned moves. The text answer's lines stay in
 * {@code messages} for people; {@code error} says why not when {@code ok} is false.
 */
final class AdminOutcome
{
    private AdminOutcome()
    {
    }

    /** A moved range that stays FENCED at {@code primary} until {@code releasedBy} releases it. */
    record Fenced(int from, int to, int primary, int releasedBy)
    {
    }

    /** One move of a rebalance plan: slots {@code from}-{@code to} go to node {@code target}. */
    record Move(int from, int to, int target)
    {
    }

    /** {@code moves}: only for {@code rebalance plan}, null otherwise. */
    record Outcome(boolean ok, String command, String error, long epoch, List<ClusterJson.Range> ranges,
        List<StatusReport.Voter> voters, List<Fenced> fenced, List<Move> moves, List<String> messages)
    {
    }

    /** {@code reply} (or {@code failure}) to {@code command} as an {@link Outcome}, in JSON. */
    static AdminReply of(final String command, final AdminReply reply, final Throwable failure,
        final ClusterView view, final List<Move> moves)
    {
        final boolean ok = failure == null && reply.ok();
        final String text = failure != null ? String.valueOf(failure.getMessage()) : reply.text();
        final List<String> messages = ok ? Arrays.stream(text.split("\n")).filter(l -> !l.isBlank()).toList() :
            List.of();
        final ClusterState state = view.current();
        List<StatusReport.Voter> voters = List.of();
        final List<Fenced> fenced = new ArrayList<>();
        if (view instanceof RatisClusterView ratis)
        {
            voters = StatusReport.voters(ratis.voters());
            for (final Map.Entry<Integer, Integer> h : ratis.coordState().handoffs().entrySet())
            {
                final SlotRange r = ratis.coordState().cluster().rangeOf(h.getKey());
                fenced.add(new Fenced(r.firstSlot(), r.lastSlot(), r.primary(), h.getValue()));
            }
        }
        return new AdminReply(ok, ClusterJson.write(new Outcome(ok, command, ok ? null : text,
            state == null ? 0 : state.epoch(), state == null ? List.of() : ClusterJson.Range.of(state.ranges()),
            voters, fenced, moves, messages)));
    }

    static List<Move> moves(final List<ClusterCommand.BeginMove> planned)
    {
        return planned.stream().map(m -> new Move(m.firstSlot(), m.lastSlot(), m.target())).toList();
    }
}
