package io.rdmakv.server.replication;

import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Where this primary can vouch that a backup held a range: created, advanced, consumed and forgotten. */
class ResumePointsTest
{
    private static final List<ClusterMember> MEMBERS = List.of(new ClusterMember(1, "127.0.0.1", 1, 2),
        new ClusterMember(2, "127.0.0.1", 3, 4));

    private static SlotRange range(final int first, final int last, final int primary, final List<Integer> backups)
    {
        return new SlotRange(first, last, 1, primary, backups, List.of(), SlotRange.State.LIVE);
    }

    @Test
    void shouldVouchFromTheFirstAcknowledgementAsAnInSyncBackupUpToTheLast()
    {
        final ResumePoints points = new ResumePoints(1);
        final SlotRange r = range(0, 99, 1, List.of(2));
        points.acked(range(0, 99, 1, List.of()), 0, 2, 5); // a learner's acknowledgement: no point
        assertEquals(0, points.size());
        points.acked(r, 0, 2, 10);
        points.acked(r, 0, 2, 11);
        points.acked(r, 0, 2, 14);
        final ResumePoints.Point p = points.take(0, 99, 2);
        assertNotNull(p);
        assertEquals(12, p.resumeAfter(12), "its store holds 12: resume after 12");
        assertEquals(14, p.resumeAfter(20), "past the last acknowledged: only what it acknowledged is vouched for");
        assertEquals(10, p.resumeAfter(10));
        assertEquals(-1, p.resumeAfter(9), "lost writes from before it was seen in sync: the whole range");
        assertNull(points.take(0, 99, 2), "consumed");
        points.putBack(0, 2, p);
        assertNotNull(points.take(0, 99, 2), "put back when the catch-up ended before the answer");
    }

    @Test
    void shouldForgetAPointWhenTheRangeChangesPrimaryOrBoundaries()
    {
        final ResumePoints points = new ResumePoints(1);
        points.acked(range(0, 99, 1, List.of(2)), 0, 2, 3);
        points.acked(range(100, 199, 1, List.of(2)), 100, 2, 4);
        points.acked(range(200, 299, 1, List.of(2)), 200, 2, 5);
        points.acked(range(300, 399, 1, List.of(2)), 250, 2, 6); // sent when the range began elsewhere
        assertEquals(3, points.size());
        points.observe(new ClusterState(2, MEMBERS, List.of(range(0, 99, 1, List.of()), range(100, 149, 1, List.of()),
            range(150, 199, 1, List.of()), range(200, ClusterState.HASH_SLOT_COUNT - 1, 2, List.of(1)))));
        assertEquals(1, points.size(), "only the range still this node's with the same boundaries");
        final ResumePoints.Point kept = points.take(0, 99, 2);
        assertNotNull(kept);
        points.putBack(0, 2, kept);
        assertNull(points.take(0, 50, 2), "other boundaries than asked");
    }
}
