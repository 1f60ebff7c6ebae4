package io.rdmakv.server.cluster.ratis;

import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.server.config.ClusterSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real Ratis group in one JVM, driven by hand: voters 1-3 from {@code cluster.voters} and node 4 with only a Raft
 * port. Voter 3 is replaced by node 4 through the operator's command; then voters 2 and 3 stop and the group still
 * commits with voters 1 and 4 (impossible with the old voters {1, 2, 3}); nodes started with the stale list find it.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class VoterChangeGroupTest
{
    private static final long LEASE_MS = 1000;

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final Map<Integer, RatisClusterView> views = new java.util.TreeMap<>();
    private List<ClusterSettings.Voter> bootstrap;
    private int raftPort4;

    @AfterEach
    void closeAll()
    {
        views.values().forEach(RatisClusterView::close);
    }

    private RatisClusterView start(final int id, final int raftPort)
    {
        final ClusterSettings settings = new ClusterSettings(bootstrap, 1, 3, LEASE_MS, 1.1, dir.resolve("n" + id),
            raftPort);
        final RatisClusterView view = RatisClusterView.startManual(settings, ClusterTransitionsTest.member(id),
            clock::get, RatisClusterView.SNAPSHOT_EVERY);
        views.put(id, view);
        return view;
    }

    private void stop(final int id)
    {
        views.remove(id).close();
    }

    private void startFour() throws IOException
    {
        bootstrap = List.of(new ClusterSettings.Voter(1, "127.0.0.1", RatisGroupTest.freePort()),
            new ClusterSettings.Voter(2, "127.0.0.1", RatisGroupTest.freePort()),
            new ClusterSettings.Voter(3, "127.0.0.1", RatisGroupTest.freePort()));
        raftPort4 = RatisGroupTest.freePort();
        for (int id = 1; id <= 3; id++)
        {
            start(id, 0);
        }
        start(4, raftPort4);
        for (final RatisClusterView v : views.values())
        {
            assertTrue(v.join().join().accepted());
        }
    }

    private static AdminReply admin(final RatisClusterView at, final String command)
    {
        return new ClusterAdmin(at).run(command).join();
    }

    private static List<Integer> ids(final List<ClusterSettings.Voter> voters)
    {
        return voters.stream().map(ClusterSettings.Voter::nodeId).toList();
    }

    @Test
    void shouldReplaceAVoterSoThatTheNewPairDecidesWhenTwoOriginalVotersAreGone() throws IOException
    {
        startFour();
        assertEquals(List.of(1, 2, 3), ids(views.get(1).voters()));
        final AdminReply replaced = admin(views.get(1), "replace-voter 3 4 127.0.0.1:" + raftPort4);
        assertTrue(replaced.ok(), replaced.text());
        assertTrue(replaced.text().contains("voters 1@") && replaced.text().lines().count() == 2, replaced.text());
        // Ratis committed {1, 2, 4}, and the state says so on every voter still in the group.
        await("voters 1, 2, 4 recorded everywhere", () -> List.of(1, 2, 4).stream().allMatch(id ->
            ids(views.get(id).voters()).equals(List.of(1, 2, 4))));
        await("the leader's committed configuration", () -> leaderOf(1, 2, 4) != null &&
            List.of(1, 2, 4).equals(ids(leaderOf(1, 2, 4).voter().committedVoters())));
        // Node 3 learns it from an answer, closes its Raft server and goes on following the group.
        assertTrue(views.get(3).renew().join().accepted());
        await("node 3 retired its Raft server", () -> views.get(3).voter() == null);
        assertTrue(views.get(3).renew().join().accepted(), "node 3 still renews as a member");
        assertFalse(admin(views.get(1), "remove-voter 1").ok(), "two voters would stay");
        final long epoch = views.get(1).coordState().cluster().epoch();
        final AdminReply removeNode = admin(views.get(1), "remove-node 2");
        assertFalse(removeNode.ok());
        assertTrue(removeNode.text().contains("leaves 2 voter(s)"), removeNode.text());
        assertEquals(epoch, views.get(1).query().join().state().cluster().epoch(), "refused before anything moved");

        stop(3);
        stop(2);
        // Voters 1 and 4 of {1, 2, 4}: a majority. The group commits node 2's failure and node 4's renewal.
        final CoordState before = views.get(1).coordState();
        final CommandReply failed = views.get(1).submit(new ClusterCommand.FailNode(2, before.renewalsOf(2))).join();
        assertTrue(failed.accepted(), failed.refusal());
        assertTrue(failed.state().isFailed(2));
        assertTrue(views.get(4).renew().join().accepted());
        final AdminReply noQuorum = admin(views.get(4), "remove-voter 4 force");
        assertFalse(noQuorum.ok());
        assertTrue(noQuorum.text().contains("no quorum"), noQuorum.text());
    }

    @Test
    void shouldLetNodesStartedWithTheStaleVoterListFindTheGroup() throws IOException
    {
        startFour();
        assertTrue(admin(views.get(2), "replace-voter 3 4 127.0.0.1:" + raftPort4).ok());
        await("node 2 applied the new voters", () -> ids(views.get(2).voters()).equals(List.of(1, 2, 4)));
        stop(3);
        // Voter 1 restarts with cluster.voters still {1, 2, 3}: Ratis recovers the committed {1, 2, 4} from its log.
        stop(1);
        final RatisClusterView restarted = start(1, 0);
        assertTrue(restarted.join().join().accepted());
        await("the restarted voter holds the committed voters", () ->
            restarted.voter().committedVoters() != null &&
                List.of(1, 2, 4).equals(ids(restarted.voter().committedVoters())) &&
                ids(restarted.voters()).equals(List.of(1, 2, 4)));
        // A new follower (no Raft port) with the stale list joins, then follows the recorded voters.
        final RatisClusterView follower = start(5, 0);
        assertNull(follower.voter());
        assertTrue(follower.join().join().accepted());
        assertEquals(List.of(1, 2, 4), ids(follower.voters()));
        stop(2);
        // Only voters 1 and 4 run: the follower's client, aimed at them now, still gets its renewal committed.
        assertTrue(follower.renew().join().accepted());
    }

    private RatisClusterView leaderOf(final int... ids)
    {
        for (final int id : ids)
        {
            final RatisClusterView v = views.get(id);
            if (v != null && v.voter() != null && v.voter().isLeader())
            {
                return v;
            }
        }
        return null;
    }

    private static void await(final String what, final BooleanSupplier condition)
    {
        GroupAwait.until(what, Duration.ofSeconds(60), condition);
    }
}
