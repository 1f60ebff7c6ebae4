package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.SlotRange;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DrainerTest
{
    private static CoordState fourNodes()
    {
        CoordState s = CoordState.empty();
        for (int id = 1; id <= 4; id++)
        {
            s = ClusterTransitionsTest.apply(s, new ClusterCommand.Join(ClusterTransitionsTest.member(id), 4, 1));
        }
        return s;
    }

    /** Carry a drain out as the group and the primaries would: each catch-up ends with the primary's promotion. */
    private static CoordState drain(final CoordState start, final int node)
    {
        CoordState s = start;
        for (int i = 0; i < 32; i++)
        {
            final ClusterCommand step = Drainer.nextStep(s, node);
            if (step == null)
            {
                return s;
            }
            s = ClusterTransitionsTest.apply(s, step);
            if (step instanceof ClusterCommand.BeginMove m)
            {
                s = promote(s, m.firstSlot(), m.target());
                s = ClusterTransitionsTest.apply(s, new ClusterCommand.FinishMove(m.firstSlot(), m.target()));
                s = ClusterTransitionsTest.apply(s, new ClusterCommand.ReleaseRange(m.firstSlot(), node));
            }
            else if (step instanceof ClusterCommand.AddReplica a)
            {
                s = promote(s, a.firstSlot(), a.nodeId());
                s = ClusterTransitionsTest.apply(s, new ClusterCommand.DropReplica(a.firstSlot(), node));
            }
        }
        throw new AssertionError("the drain did not end");
    }

    private static CoordState promote(final CoordState s, final int firstSlot, final int learner)
    {
        final SlotRange r = s.cluster().rangeOf(firstSlot);
        return ClusterTransitionsTest.apply(s, new ClusterCommand.PromoteLearner(r.firstSlot(), r.epoch(), r.primary(),
            learner));
    }

    @Test
    void shouldMoveEveryReplicaOffTheNodeKeepingEachRangesReplicaCount()
    {
        final CoordState drained = drain(fourNodes(), 4);
        for (final SlotRange r : drained.cluster().ranges())
        {
            assertFalse(r.hasReplica(4), "node 4 holds nothing: " + r);
            assertEquals(1, r.backups().size(), "one backup still: " + r);
            assertEquals(SlotRange.State.LIVE, r.state(), r.toString());
        }
        final CoordState removed = ClusterTransitionsTest.apply(drained, new ClusterCommand.RemoveMember(4));
        assertNull(removed.cluster().member(4));
    }

    @Test
    void shouldFailOverThenDropWhenNoOtherNodeCanTakeTheRange()
    {
        // Three nodes, one backup per range: once node 3 is drained, two nodes hold everything.
        final CoordState start = ClusterTransitionsTest.threeNodes();
        final CoordState drained = drain(start, 3);
        for (final SlotRange r : drained.cluster().ranges())
        {
            assertFalse(r.hasReplica(3), r.toString());
            assertTrue(r.primary() == 1 || r.primary() == 2, r.toString());
        }
    }

    @Test
    void shouldRefuseToDropAPrimaryOrANonReplica()
    {
        final CoordState s = ClusterTransitionsTest.threeNodes();
        final SlotRange r = s.cluster().ranges().get(0);
        assertFalse(ClusterTransitions.apply(s, new ClusterCommand.DropReplica(r.firstSlot(), r.primary())).accepted());
        final int stranger = 6 - r.primary() - r.backups().get(0);
        assertFalse(ClusterTransitions.apply(s, new ClusterCommand.DropReplica(r.firstSlot(), stranger)).accepted());
        assertFalse(ClusterTransitions.apply(s, new ClusterCommand.AddReplica(r.firstSlot(), r.primary())).accepted());
        final CoordState added = ClusterTransitionsTest.apply(s, new ClusterCommand.AddReplica(r.firstSlot(), stranger));
        assertTrue(added.cluster().rangeOf(r.firstSlot()).learners().contains(stranger));
        assertTrue(added.cluster().epoch() > s.cluster().epoch(), "a change raises the epoch");
    }

    @Test
    void shouldRoundTripTheNewCommandsThroughTheCodec()
    {
        for (final ClusterCommand c : new ClusterCommand[] {new ClusterCommand.AddReplica(5461, 3),
            new ClusterCommand.DropReplica(0, 2)})
        {
            assertEquals(c, CommandCodec.decodeCommand(CommandCodec.encode(c)));
        }
    }
}
