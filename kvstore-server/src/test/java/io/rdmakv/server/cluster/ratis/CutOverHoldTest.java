package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class CutOverHoldTest
{
    @Test
    void shouldFindTheCutOverForTheSourceAndTheTargetOnlyAtFinishMove()
    {
        CoordState s = ClusterTransitionsTest.threeNodes();
        final SlotRange two = s.cluster().ranges().stream().filter(r -> r.primary() == 2).findFirst().orElseThrow();
        final ClusterState live = s.cluster();
        s = ClusterTransitionsTest.apply(s, new ClusterCommand.BeginMove(two.firstSlot(), two.lastSlot(), 1));
        final ClusterState migrating = s.cluster();
        final SlotRange moving = migrating.rangeOf(two.firstSlot());
        s = ClusterTransitionsTest.apply(s, new ClusterCommand.PromoteLearner(moving.firstSlot(), moving.epoch(), 2, 1));
        final ClusterState inSync = s.cluster();
        s = ClusterTransitionsTest.apply(s, new ClusterCommand.FinishMove(two.firstSlot(), 1));
        final ClusterState moved = s.cluster();

        for (int node = 1; node <= 3; node++)
        {
            assertNull(CutOverHold.cutOver(live, migrating, node), "beginning a move is no cut-over");
            assertNull(CutOverHold.cutOver(migrating, inSync, node), "catching up is no cut-over");
        }
        assertEquals(1, CutOverHold.cutOver(inSync, moved, 2).primary(), "the source sees its range go");
        assertEquals(1, CutOverHold.cutOver(inSync, moved, 1).primary(), "the target sees it come");
        assertNull(CutOverHold.cutOver(inSync, moved, 3), "the bystander backup is not held");
        assertEquals(1, CutOverHold.cutOver(migrating, moved, 2).primary(), "also when a state was skipped");
    }

    @Test
    void shouldFindTheHandoverOfAManualFailoverButNotAPromotionAfterAFailure()
    {
        final CoordState s = ClusterTransitionsTest.threeNodes();
        final SlotRange two = s.cluster().ranges().stream().filter(r -> r.primary() == 2).findFirst().orElseThrow();
        final int backup = two.backups().get(0);
        final ClusterState handedOver = ClusterTransitionsTest.apply(s,
            new ClusterCommand.Failover(two.firstSlot(), backup)).cluster();
        assertEquals(backup, CutOverHold.cutOver(s.cluster(), handedOver, 2).primary(), "the old primary");
        assertEquals(backup, CutOverHold.cutOver(s.cluster(), handedOver, backup).primary(), "the new primary");
        final ClusterState promoted = ClusterTransitionsTest.apply(s, new ClusterCommand.FailNode(2, s.renewalsOf(2)))
            .cluster();
        assertNull(CutOverHold.cutOver(s.cluster(), promoted, backup), "a failed node's range goes LIVE at once");
    }
}
