package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClusterTransitionsTest
{
    static ClusterMember member(final int id)
    {
        return new ClusterMember(id, "127.0.0.1", 7000 + id, 8000 + id);
    }

    /** Three nodes joined with one backup each: the first layout. */
    static CoordState threeNodes()
    {
        CoordState s = CoordState.empty();
        for (int id = 1; id <= 3; id++)
        {
            final ClusterTransitions.Outcome o = ClusterTransitions.apply(s, new ClusterCommand.Join(member(id), 3, 1));
            assertTrue(o.accepted(), o.refusal());
            s = o.state();
        }
        return s;
    }

    static CoordState apply(final CoordState s, final ClusterCommand c)
    {
        final ClusterTransitions.Outcome o = ClusterTransitions.apply(s, c);
        assertTrue(o.accepted(), o.refusal());
        assertTrue(o.state().cluster().epoch() >= s.cluster().epoch(), "epochs never fall");
        return o.state();
    }

    @Test
    void shouldLayOutSlotsOnceTheInitialNodesJoined()
    {
        final CoordState s = threeNodes();
        final ClusterState c = s.cluster();
        assertEquals(3, c.members().size());
        assertEquals(3, c.ranges().size());
        assertEquals(0, c.ranges().get(0).firstSlot());
        assertEquals(ClusterState.HASH_SLOT_COUNT - 1, c.ranges().get(2).lastSlot());
        assertEquals(1, c.ranges().get(0).primary());
        assertEquals(List.of(2), c.ranges().get(0).backups());
        assertEquals(List.of(1), c.ranges().get(2).backups());
        assertEquals(3, c.epoch(), "one epoch per committed join");
        c.ranges().forEach(r -> assertEquals(3, r.epoch()));
    }

    @Test
    void shouldTreatARepeatedJoinAsNoChange()
    {
        final CoordState s = threeNodes();
        final ClusterTransitions.Outcome again = ClusterTransitions.apply(s, new ClusterCommand.Join(member(2), 3, 1));
        assertTrue(again.accepted());
        assertSame(s, again.state());
    }

    @Test
    void shouldPromoteTheFirstBackupAtANewEpochWhenANodeFails()
    {
        final CoordState s = threeNodes();
        final CoordState after = apply(s, new ClusterCommand.FailNode(1, 0));
        final ClusterState c = after.cluster();
        assertEquals(s.cluster().epoch() + 1, c.epoch());
        final SlotRange first = c.ranges().get(0);
        assertEquals(2, first.primary(), "node 1's backup is the new primary");
        assertEquals(List.of(), first.backups());
        assertEquals(c.epoch(), first.epoch());
        final SlotRange third = c.ranges().get(2);
        assertEquals(3, third.primary());
        assertFalse(third.backups().contains(1), "the failed node leaves every in-sync set");
        assertEquals(s.cluster().ranges().get(1), c.ranges().get(1), "a range node 1 had no part in is unchanged");
        assertTrue(after.isFailed(1));
    }

    @Test
    void shouldRefuseAFailoverDecisionWhenTheNodeRenewedMeanwhile()
    {
        final CoordState s = apply(threeNodes(), new ClusterCommand.Renew(1));
        final ClusterTransitions.Outcome o = ClusterTransitions.apply(s, new ClusterCommand.FailNode(1, 0));
        assertFalse(o.accepted());
        assertSame(s, o.state());
        assertEquals(s.cluster().epoch(), apply(s, new ClusterCommand.Renew(2)).cluster().epoch(),
            "renewals do not move the epoch");
    }

    @Test
    void shouldRefuseRenewalsOfAFailedNodeUntilItRejoinsAsALearner()
    {
        final CoordState failed = apply(threeNodes(), new ClusterCommand.FailNode(1, 0));
        assertFalse(ClusterTransitions.apply(failed, new ClusterCommand.Renew(1)).accepted());
        final CoordState back = apply(failed, new ClusterCommand.Join(member(1), 3, 1));
        assertFalse(back.isFailed(1));
        assertTrue(back.cluster().ranges().get(0).learners().contains(1), "returns as a learner of its old range");
        apply(back, new ClusterCommand.Renew(1));
    }

    @Test
    void shouldFenceARangeWithoutBackupsAndServeItAgainWhenItsPrimaryReturns()
    {
        CoordState s = CoordState.empty();
        s = apply(s, new ClusterCommand.Join(member(1), 2, 0));
        s = apply(s, new ClusterCommand.Join(member(2), 2, 0));
        s = apply(s, new ClusterCommand.FailNode(1, 0));
        assertEquals(SlotRange.State.FENCED, s.cluster().ranges().get(0).state());
        s = apply(s, new ClusterCommand.Join(member(1), 2, 0));
        assertEquals(SlotRange.State.LIVE, s.cluster().ranges().get(0).state());
        assertEquals(1, s.cluster().ranges().get(0).primary());
    }

    @Test
    void shouldMoveInSyncBackupsToLearnersOnlyAtTheRangesEpochAndFromItsPrimary()
    {
        final CoordState s = threeNodes();
        final SlotRange r = s.cluster().ranges().get(0);
        assertFalse(ClusterTransitions.apply(s,
            new ClusterCommand.RemoveFromInSync(0, r.epoch() - 1, 1, 2)).accepted(), "an older epoch is refused");
        assertFalse(ClusterTransitions.apply(s,
            new ClusterCommand.RemoveFromInSync(0, r.epoch(), 3, 2)).accepted(), "only the primary may ask");
        final CoordState removed = apply(s, new ClusterCommand.RemoveFromInSync(0, r.epoch(), 1, 2));
        final SlotRange after = removed.cluster().ranges().get(0);
        assertEquals(List.of(), after.backups());
        assertEquals(List.of(2), after.learners());
        assertTrue(after.epoch() > r.epoch());
        final CoordState promoted = apply(removed, new ClusterCommand.PromoteLearner(0, after.epoch(), 1, 2));
        assertEquals(List.of(2), promoted.cluster().ranges().get(0).backups());
    }

    @Test
    void shouldFailOverManuallyOnlyToAnInSyncBackup()
    {
        final CoordState s = threeNodes();
        assertFalse(ClusterTransitions.apply(s, new ClusterCommand.Failover(0, 3)).accepted());
        final CoordState after = apply(s, new ClusterCommand.Failover(0, 2));
        final SlotRange r = after.cluster().ranges().get(0);
        assertEquals(2, r.primary());
        assertEquals(SlotRange.State.FENCED, r.state(), "nobody serves it until the old primary released it");
        assertEquals(List.of(), r.backups());
        assertEquals(List.of(1), r.learners(), "the old primary catches up before it counts again");
        assertFalse(ClusterTransitions.apply(after, new ClusterCommand.Failover(0, 1)).accepted(),
            "no failover during the handover");
        final SlotRange released = apply(after, new ClusterCommand.ReleaseRange(0, 1)).cluster().ranges().get(0);
        assertEquals(SlotRange.State.LIVE, released.state());
        assertEquals(2, released.primary());
        assertTrue(released.epoch() > r.epoch());
    }

    @Test
    void shouldEndAManualFailoverWhoseOldPrimaryDiesBeforeReleasing()
    {
        final CoordState s = apply(threeNodes(), new ClusterCommand.Failover(0, 2));
        final SlotRange r = apply(s, new ClusterCommand.FailNode(1, s.renewalsOf(1))).cluster().ranges().get(0);
        assertEquals(2, r.primary());
        assertEquals(SlotRange.State.LIVE, r.state(), "its lease is over: the new primary serves");
        assertFalse(r.hasReplica(1), "a failed node is no learner");
    }

    @Test
    void shouldMoveASplitRangeThroughLearnerInSyncAndNewPrimary()
    {
        CoordState s = apply(threeNodes(), new ClusterCommand.Join(member(4), 3, 1));
        assertEquals(3, s.cluster().ranges().size(), "a later member gets nothing until a move");
        s = apply(s, new ClusterCommand.BeginMove(100, 199, 4));
        assertEquals(5, s.cluster().ranges().size());
        final SlotRange moving = s.cluster().rangeOf(150);
        assertEquals(SlotRange.State.MIGRATING, moving.state());
        assertEquals(List.of(4), moving.learners());
        assertFalse(ClusterTransitions.apply(s, new ClusterCommand.FinishMove(100, 4)).accepted(),
            "not before the target is in sync");
        s = apply(s, new ClusterCommand.PromoteLearner(100, moving.epoch(), 1, 4));
        s = apply(s, new ClusterCommand.FinishMove(100, 4));
        final SlotRange cutOver = s.cluster().rangeOf(150);
        assertEquals(4, cutOver.primary());
        assertEquals(List.of(2), cutOver.backups());
        assertEquals(SlotRange.State.FENCED, cutOver.state(), "nobody serves it until the old primary released it");
        assertFalse(ClusterTransitions.apply(s, new ClusterCommand.ReleaseRange(100, 2)).accepted(),
            "only the old primary releases");
        assertFalse(ClusterTransitions.apply(s, new ClusterCommand.Failover(100, 2)).accepted(),
            "no failover during the cut-over");
        assertFalse(ClusterTransitions.apply(s, new ClusterCommand.RemoveMember(1)).accepted(),
            "the old primary stays a member until it released");
        assertEquals(s, CommandCodec.decodeState(CommandCodec.encode(s)), "handoffs survive a snapshot");
        s = apply(s, new ClusterCommand.ReleaseRange(100, 1));
        final SlotRange moved = s.cluster().rangeOf(150);
        assertEquals(4, moved.primary());
        assertEquals(SlotRange.State.LIVE, moved.state());
        assertTrue(moved.epoch() > cutOver.epoch());
        assertTrue(s.handoffs().isEmpty());
        assertEquals(1, s.cluster().rangeOf(99).primary());
        assertEquals(1, s.cluster().rangeOf(200).primary());
        assertFalse(ClusterTransitions.apply(s, new ClusterCommand.RemoveMember(4)).accepted());
    }

    @Test
    void shouldEndACutOverWhenTheOldPrimaryOrTheNewOneFails()
    {
        CoordState s = apply(threeNodes(), new ClusterCommand.Join(member(4), 3, 1));
        s = apply(s, new ClusterCommand.BeginMove(100, 199, 4));
        s = apply(s, new ClusterCommand.PromoteLearner(100, s.cluster().rangeOf(150).epoch(), 1, 4));
        final CoordState cutOver = apply(s, new ClusterCommand.FinishMove(100, 4));

        final CoordState sourceFailed = apply(cutOver, new ClusterCommand.FailNode(1, cutOver.renewalsOf(1)));
        assertEquals(SlotRange.State.LIVE, sourceFailed.cluster().rangeOf(150).state(),
            "the old primary's lease is over: the new primary serves");
        assertEquals(4, sourceFailed.cluster().rangeOf(150).primary());

        final CoordState targetFailed = apply(cutOver, new ClusterCommand.FailNode(4, cutOver.renewalsOf(4)));
        assertEquals(2, targetFailed.cluster().rangeOf(150).primary(), "the in-sync backup takes over");
        assertEquals(SlotRange.State.FENCED, targetFailed.cluster().rangeOf(150).state(),
            "still not served until the old primary released it");
        final CoordState released = apply(targetFailed, new ClusterCommand.ReleaseRange(100, 1));
        assertEquals(SlotRange.State.LIVE, released.cluster().rangeOf(150).state());
    }

    @Test
    void shouldRoundTripStatesAndCommandsAndRejectMalformedBytes()
    {
        final CoordState s = apply(apply(threeNodes(), new ClusterCommand.Renew(2)), new ClusterCommand.FailNode(3, 0));
        assertEquals(s, CommandCodec.decodeState(CommandCodec.encode(s)));
        final List<ClusterCommand> commands = List.of(new ClusterCommand.Join(member(9), 3, 1),
            new ClusterCommand.Renew(2), new ClusterCommand.FailNode(1, 7), new ClusterCommand.RemoveFromInSync(0, 4, 1, 2),
            new ClusterCommand.PromoteLearner(5, 6, 7, 8), new ClusterCommand.Failover(0, 2),
            new ClusterCommand.BeginMove(1, 2, 3), new ClusterCommand.FinishMove(1, 3),
            new ClusterCommand.ReleaseRange(1, 2), new ClusterCommand.AddReplica(1, 3),
            new ClusterCommand.DropReplica(1, 3), new ClusterCommand.RemoveMember(4), new ClusterCommand.Renew(2, 0),
            new ClusterCommand.Renew(2, 41));
        for (final ClusterCommand c : commands)
        {
            assertEquals(c, CommandCodec.decodeCommand(CommandCodec.encode(c)));
        }
        final byte[] renew = CommandCodec.encode(new ClusterCommand.Renew(2));
        assertThrows(IllegalArgumentException.class, () -> CommandCodec.decodeCommand(new byte[] {1, 99}));
        assertThrows(IllegalArgumentException.class, () -> CommandCodec.decodeCommand(new byte[] {2, 2, 0, 0, 0, 1}));
        assertThrows(IllegalArgumentException.class,
            () -> CommandCodec.decodeCommand(java.util.Arrays.copyOf(renew, renew.length + 1)));
        assertThrows(IllegalArgumentException.class,
            () -> CommandCodec.decodeCommand(java.util.Arrays.copyOf(renew, renew.length - 1)));
        // A renewal that names its epoch is its own type (14); one from an older log (type 2) asks for the state.
        assertEquals(14, CommandCodec.encode(new ClusterCommand.Renew(2, 41))[1]);
        assertEquals(-1, ((ClusterCommand.Renew) CommandCodec.decodeCommand(renew)).knownEpoch());
        assertThrows(IllegalArgumentException.class, () -> CommandCodec.decodeCommand(
            new byte[] {1, 14, 0, 0, 0, 2, -1, -1, -1, -1, -1, -1, -1, -1}), "a negative known epoch");
        final CommandReply reply = new CommandReply("no", s);
        assertEquals(reply, CommandReply.decode(reply.encode()));
        assertNotNull(CommandReply.decode(new CommandReply(null, s).encode()).state());
    }

    @Test
    void shouldEncodeARenewalsAnswerWithoutTheStateInElevenBytesWhateverTheClustersSize()
    {
        final CommandReply unchanged = CommandReply.unchanged(41);
        final byte[] bytes = unchanged.encode();
        assertEquals(11, bytes.length);
        final CommandReply decoded = CommandReply.decode(bytes);
        assertTrue(decoded.accepted() && decoded.stateOmitted());
        assertEquals(41, decoded.epoch());
        assertThrows(IllegalArgumentException.class,
            () -> CommandReply.decode(java.util.Arrays.copyOf(bytes, bytes.length + 1)), "trailing bytes");
        assertThrows(IllegalArgumentException.class,
            () -> CommandReply.decode(java.util.Arrays.copyOf(bytes, bytes.length - 1)), "truncated");
        final byte[] unknown = bytes.clone();
        unknown[0] = 3;
        assertThrows(IllegalArgumentException.class, () -> CommandReply.decode(unknown), "unknown form");
        final CoordState s = threeNodes();
        assertFalse(new CommandReply(null, s).stateOmitted());
        assertEquals(s.cluster().epoch(), new CommandReply(null, s).epoch());
    }
}
