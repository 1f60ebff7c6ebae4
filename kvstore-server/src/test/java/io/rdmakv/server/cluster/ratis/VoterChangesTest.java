package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.config.ClusterSettings;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rules of a change of the group's voters, and the voter list's place in the state (transition and bytes). */
class VoterChangesTest
{
    private static final List<ClusterSettings.Voter> THREE = List.of(voter(1), voter(2), voter(3));

    static ClusterSettings.Voter voter(final int id)
    {
        return new ClusterSettings.Voter(id, "127.0.0.1", 9000 + id);
    }

    /** Nodes 1-4 joined (4 after the layout of three), {@code failed} declared failed. */
    private static CoordState fourNodes(final int... failed)
    {
        CoordState s = ClusterTransitionsTest.apply(ClusterTransitionsTest.threeNodes(),
            new ClusterCommand.Join(ClusterTransitionsTest.member(4), 3, 1));
        for (final int id : failed)
        {
            s = ClusterTransitionsTest.apply(s, new ClusterCommand.FailNode(id, s.renewalsOf(id)));
        }
        return s;
    }

    @Test
    void shouldRefuseRemovingAVoterBelowThreeUnlessForced()
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> VoterChanges.remove(THREE, fourNodes(), 3, false));
        assertTrue(refused.getMessage().contains("leaves 2 voter(s)"), refused.getMessage());
        assertEquals(List.of(voter(1), voter(2)), VoterChanges.remove(THREE, fourNodes(), 3, true));
        assertThrows(IllegalArgumentException.class, () -> VoterChanges.remove(List.of(voter(1)), fourNodes(), 1,
            true), "never the last voter");
        final IllegalArgumentException notVoter = assertThrows(IllegalArgumentException.class,
            () -> VoterChanges.remove(THREE, fourNodes(), 4, true));
        assertTrue(notVoter.getMessage().contains("not a voter"), notVoter.getMessage());
    }

    @Test
    void shouldRefuseAChangeWithoutAMajorityOfLiveVotersBeforeOrAfterIt()
    {
        // Voters 1, 2, 3 with 3 failed: removing the live 2 leaves {1, 3}, of which only 1 is live.
        final IllegalArgumentException after = assertThrows(IllegalArgumentException.class,
            () -> VoterChanges.remove(THREE, fourNodes(3), 2, true));
        assertTrue(after.getMessage().startsWith("no quorum"), after.getMessage());
        // Voters 1, 2, 3 with 2 and 3 failed: no change at all (the group itself has no majority).
        final IllegalArgumentException before = assertThrows(IllegalArgumentException.class,
            () -> VoterChanges.add(THREE, fourNodes(2, 3), voter(4)));
        assertTrue(before.getMessage().startsWith("no quorum"), before.getMessage());
        // Removing the failed one itself keeps a live majority before and after (forced: two stay).
        assertEquals(List.of(voter(1), voter(2)), VoterChanges.remove(THREE, fourNodes(3), 3, true));
    }

    @Test
    void shouldAddOnlyALiveMemberThatIsNoVoterYet()
    {
        assertEquals(List.of(voter(1), voter(2), voter(3), voter(4)), VoterChanges.add(THREE, fourNodes(), voter(4)));
        assertThrows(IllegalArgumentException.class, () -> VoterChanges.add(THREE, fourNodes(), voter(2)));
        assertThrows(IllegalArgumentException.class, () -> VoterChanges.add(THREE, fourNodes(),
            new ClusterSettings.Voter(4, "127.0.0.1", 9001)), "voter 1's address");
        final IllegalArgumentException notMember = assertThrows(IllegalArgumentException.class,
            () -> VoterChanges.add(THREE, fourNodes(), voter(5)));
        assertTrue(notMember.getMessage().contains("not a live member"), notMember.getMessage());
        assertThrows(IllegalArgumentException.class, () -> VoterChanges.add(THREE, fourNodes(4), voter(4)),
            "a failed node is not live");
    }

    @Test
    void shouldReplaceAFailedVoterInTwoStepsWithoutForce()
    {
        final List<List<ClusterSettings.Voter>> steps = VoterChanges.replace(THREE, fourNodes(3), 3, voter(4), false);
        assertEquals(List.of(List.of(voter(1), voter(2), voter(3), voter(4)), List.of(voter(1), voter(2), voter(4))),
            steps);
        assertThrows(IllegalArgumentException.class, () -> VoterChanges.replace(THREE, fourNodes(), 5, voter(4), false),
            "5 is no voter");
    }

    @Test
    void shouldRecordVotersInTheStateRaisingTheEpochOnlyWhenTheyChange()
    {
        final CoordState s = fourNodes();
        final CoordState changed = ClusterTransitionsTest.apply(s,
            new ClusterCommand.SetVoters(List.of(voter(4), voter(1), voter(2))));
        assertEquals(List.of(voter(1), voter(2), voter(4)), changed.voters(), "sorted by id");
        assertEquals(s.cluster().epoch() + 1, changed.cluster().epoch());
        assertEquals(s.cluster().ranges(), changed.cluster().ranges());
        assertSame(changed, ClusterTransitions.apply(changed,
            new ClusterCommand.SetVoters(List.of(voter(1), voter(2), voter(4)))).state(), "the same voters: no change");
        assertTrue(!ClusterTransitions.apply(s, new ClusterCommand.SetVoters(List.of())).accepted());
        assertTrue(!ClusterTransitions.apply(s, new ClusterCommand.SetVoters(List.of(voter(1), voter(1)))).accepted());
        final CoordState failed = ClusterTransitionsTest.apply(changed, new ClusterCommand.FailNode(3, 0));
        assertEquals(changed.voters(), failed.voters(), "other transitions keep the voters");
    }

    @Test
    void shouldEncodeTheVotersAndReadAStateWrittenBeforeThem()
    {
        final CoordState changed = ClusterTransitionsTest.apply(fourNodes(),
            new ClusterCommand.SetVoters(List.of(voter(1), voter(2), voter(4))));
        assertEquals(changed, CommandCodec.decodeState(CommandCodec.encode(changed)));
        final ClusterCommand command = new ClusterCommand.SetVoters(List.of(voter(1), voter(4)));
        assertEquals(command, CommandCodec.decodeCommand(CommandCodec.encode(command)));
        // A snapshot of version 1 (before the voters): no voter count at the end; it decodes with none.
        final CoordState old = fourNodes();
        final byte[] current = CommandCodec.encode(old);
        final byte[] versionOne = CommandCodec.encode(old, 1);
        assertEquals(current.length - 4 - 2 * old.cluster().members().size(), versionOne.length,
            "no voters, no RESP ports");
        assertEquals(old, CommandCodec.decodeState(versionOne));
        final byte[] unknown = current.clone();
        unknown[0] = 4;
        assertThrows(IllegalArgumentException.class, () -> CommandCodec.decodeState(unknown));
    }
}
