package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RebalancerTest
{
    @Test
    void shouldPlanNothingForAnEvenLayout()
    {
        assertEquals(List.of(), Rebalancer.plan(ClusterTransitionsTest.threeNodes()));
    }

    @Test
    void shouldGiveANewMemberItsShareFromTheMostLoadedAndCommitEveryStep()
    {
        CoordState s = ClusterTransitionsTest.apply(ClusterTransitionsTest.threeNodes(),
            new ClusterCommand.Join(ClusterTransitionsTest.member(4), 3, 1));
        final List<ClusterCommand.BeginMove> moves = Rebalancer.plan(s);
        assertTrue(!moves.isEmpty() && moves.size() <= 3, "a few moves: " + moves);
        for (final ClusterCommand.BeginMove m : moves)
        {
            assertEquals(4, m.target(), "every move goes to the empty member");
            // Carry the move out exactly as the group would: learner, in sync, new primary.
            s = ClusterTransitionsTest.apply(s, m);
            final SlotRange moving = s.cluster().rangeOf(m.firstSlot());
            s = ClusterTransitionsTest.apply(s,
                new ClusterCommand.PromoteLearner(moving.firstSlot(), moving.epoch(), moving.primary(), 4));
            s = ClusterTransitionsTest.apply(s, new ClusterCommand.FinishMove(m.firstSlot(), 4));
            s = ClusterTransitionsTest.apply(s, new ClusterCommand.ReleaseRange(m.firstSlot(), moving.primary()));
        }
        final Map<Integer, Integer> hashSlots = new HashMap<>();
        for (final SlotRange r : s.cluster().ranges())
        {
            hashSlots.merge(r.primary(), r.lastSlot() - r.firstSlot() + 1, Integer::sum);
        }
        final int share = ClusterState.HASH_SLOT_COUNT / 4;
        for (int id = 1; id <= 4; id++)
        {
            assertTrue(Math.abs(hashSlots.get(id) - share) <= share / 10, "node " + id + " has " + hashSlots.get(id) +
                " slots, the share is " + share);
        }
        assertEquals(List.of(), Rebalancer.plan(s), "balanced afterwards");
    }
}
