package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterMember;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The members' RESP ports in the group's log and snapshots: a join names its node's RESP port (type 15; a node without
 * one joins as before, type 1), a snapshot keeps every member's, and snapshots and logs written before (no RESP port)
 * decode with none.
 */
class RespPortCodecTest
{
    private static ClusterMember withResp(final int id)
    {
        return new ClusterMember(id, "127.0.0.1", 7000 + id, 8000 + id, 6379 + id);
    }

    @Test
    void shouldCarryTheRespPortInAJoinAndLeaveAJoinWithoutOneAsItWas()
    {
        final ClusterCommand.Join join = new ClusterCommand.Join(withResp(1), 3, 1);
        final byte[] bytes = CommandCodec.encode(join);
        assertEquals(15, bytes[1], "the join with a RESP port");
        assertEquals(join, CommandCodec.decodeCommand(bytes));
        final ClusterCommand.Join plain = new ClusterCommand.Join(ClusterTransitionsTest.member(2), 3, 1);
        final byte[] plainBytes = CommandCodec.encode(plain);
        assertEquals(1, plainBytes[1], "the join of a node without RESP, as logs before held it");
        assertEquals(plain, CommandCodec.decodeCommand(plainBytes));
        assertEquals(0, ((ClusterCommand.Join)CommandCodec.decodeCommand(plainBytes)).member().respPort());
    }

    @Test
    void shouldKeepEveryMembersRespPortInASnapshotAndReadOlderSnapshotsWithNone()
    {
        CoordState s = ClusterTransitionsTest.apply(ClusterTransitionsTest.threeNodes(),
            new ClusterCommand.Join(withResp(1), 3, 1));
        s = ClusterTransitionsTest.apply(s, new ClusterCommand.Join(withResp(2), 3, 1));
        assertEquals(6380, s.cluster().member(1).respPort(), "a join again with a RESP port updates the member");
        assertEquals(s, CommandCodec.decodeState(CommandCodec.encode(s)));
        for (final int version : new int[] {1, 2})
        {
            final CoordState old = CommandCodec.decodeState(CommandCodec.encode(s, version));
            assertEquals(0, old.cluster().member(1).respPort(), "version " + version);
            assertEquals(s.cluster().ranges(), old.cluster().ranges(), "version " + version);
        }
    }
}
