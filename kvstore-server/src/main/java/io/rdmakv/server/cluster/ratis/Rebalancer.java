package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code rebalance}: even out how many slots each live member is primary of, by moving slot ranges (split where
 * needed) from the most loaded to the least loaded member, one move at a time: BEGIN_MOVE (the target becomes a
 * learner, the primary streams it a checkpoint and the tail), wait until the primary reported it in sync
 * (PROMOTE_LEARNER), FINISH_MOVE (the target is primary at the next epoch). The plan is made on a simulated state
 * with {@link ClusterTransitions}, so it is what the group will commit.
 */
final class Rebalancer
{
    /** A member within this share of the even split (1/10) is left alone. */
    private static final int SLACK_DIVISOR = 10;
    private static final int MAX_MOVES = 64;

    private Rebalancer()
    {
    }

    /** The moves that even out primaries, in order. */
    static List<ClusterCommand.BeginMove> plan(final CoordState start)
    {
        final List<ClusterCommand.BeginMove> moves = new ArrayList<>();
        CoordState s = start;
        for (int i = 0; i < MAX_MOVES; i++)
        {
            final ClusterCommand.BeginMove move = nextMove(s);
            if (move == null)
            {
                break;
            }
            moves.add(move);
            s = simulate(s, move);
        }
        return moves;
    }

    private static ClusterCommand.BeginMove nextMove(final CoordState s)
    {
        final ClusterState c = s.cluster();
        final Map<Integer, Integer> hashSlots = new HashMap<>();
        for (final ClusterMember m : c.members())
        {
            if (!s.isFailed(m.nodeId()))
            {
                hashSlots.put(m.nodeId(), 0);
            }
        }
        if (hashSlots.size() < 2 || c.ranges().isEmpty())
        {
            return null;
        }
        for (final SlotRange r : c.ranges())
        {
            hashSlots.computeIfPresent(r.primary(), (k, v) -> v + r.lastSlot() - r.firstSlot() + 1);
        }
        final int share = ClusterState.HASH_SLOT_COUNT / hashSlots.size();
        final int slack = Math.max(1, share / SLACK_DIVISOR);
        int over = -1;
        int under = -1;
        for (final Map.Entry<Integer, Integer> e : hashSlots.entrySet())
        {
            if (over < 0 || e.getValue() > hashSlots.get(over))
            {
                over = e.getKey();
            }
            if (under < 0 || e.getValue() < hashSlots.get(under))
            {
                under = e.getKey();
            }
        }
        if (hashSlots.get(over) <= share + slack || hashSlots.get(under) >= share - slack)
        {
            return null;
        }
        final int amount = Math.min(hashSlots.get(over) - share, share - hashSlots.get(under));
        SlotRange best = null;
        for (final SlotRange r : c.ranges())
        {
            if (r.primary() == over && r.state() == SlotRange.State.LIVE && !r.hasReplica(under) &&
                (best == null || size(r) > size(best)))
            {
                best = r;
            }
        }
        if (best == null)
        {
            return null;
        }
        final int take = Math.min(amount, size(best));
        return new ClusterCommand.BeginMove(best.lastSlot() - take + 1, best.lastSlot(), under);
    }

    private static int size(final SlotRange r)
    {
        return r.lastSlot() - r.firstSlot() + 1;
    }

    /** The state after the move completed (learner, in sync, new primary, released), for planning the next one. */
    private static CoordState simulate(final CoordState s, final ClusterCommand.BeginMove move)
    {
        CoordState next = ClusterTransitions.apply(s, move).state();
        final SlotRange moving = next.cluster().rangeOf(move.firstSlot());
        next = ClusterTransitions.apply(next, new ClusterCommand.PromoteLearner(moving.firstSlot(), moving.epoch(),
            moving.primary(), move.target())).state();
        final int source = moving.primary();
        next = ClusterTransitions.apply(next, new ClusterCommand.FinishMove(move.firstSlot(), move.target())).state();
        return ClusterTransitions.apply(next, new ClusterCommand.ReleaseRange(move.firstSlot(), source)).state();
    }

    /**
     * Carry out {@code moves} through {@code view}, one at a time; each waits at most {@code catchUpTimeoutMillis}
     * for its target to be in sync. Returns one line per step.
     */
    static String run(final RatisClusterView view, final List<ClusterCommand.BeginMove> moves,
        final long catchUpTimeoutMillis) throws InterruptedException
    {
        final StringBuilder log = new StringBuilder();
        for (final ClusterCommand.BeginMove move : moves)
        {
            final CommandReply begun = view.submit(move).join();
            if (!begun.accepted())
            {
                return log.append("move of ").append(move.firstSlot()).append('-').append(move.lastSlot())
                    .append(" to node ").append(move.target()).append(" refused: ").append(begun.refusal()).toString();
            }
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(catchUpTimeoutMillis);
            while (!view.current().rangeOf(move.firstSlot()).backups().contains(move.target()))
            {
                if (System.nanoTime() > deadline)
                {
                    return log.append("node ").append(move.target()).append(" did not catch up on ")
                        .append(move.firstSlot()).append('-').append(move.lastSlot()).append(" within ")
                        .append(catchUpTimeoutMillis).append(" ms; the range stays MIGRATING (finish-move ")
                        .append(move.firstSlot()).append(' ').append(move.target()).append(" once it has)").toString();
                }
                Thread.sleep(50);
            }
            final CommandReply finished = view.submit(new ClusterCommand.FinishMove(move.firstSlot(), move.target()))
                .join();
            if (!finished.accepted())
            {
                return log.append("finish of ").append(move.firstSlot()).append(" refused: ")
                    .append(finished.refusal()).toString();
            }
            log.append("moved ").append(move.firstSlot()).append('-').append(move.lastSlot()).append(" to node ")
                .append(move.target()).append(" at epoch ").append(finished.state().cluster().epoch()).append('\n');
        }
        return log.length() == 0 ? "balanced: nothing to move" : log.toString().trim();
    }
}
