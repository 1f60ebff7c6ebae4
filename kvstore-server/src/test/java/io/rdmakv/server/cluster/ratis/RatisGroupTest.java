package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.config.ClusterSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three voters of a real Ratis group in one JVM, driven by hand (no background renewals) on one injected clock, so
 * every lease decision happens at an instant the test chose.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RatisGroupTest
{
    private static final long LEASE_MS = 1000;
    private static final long LEASE = TimeUnit.MILLISECONDS.toNanos(LEASE_MS);

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final List<RatisClusterView> views = new ArrayList<>(List.of());
    private List<ClusterSettings.Voter> voters;

    @AfterEach
    void closeAll()
    {
        for (final RatisClusterView v : views)
        {
            if (v != null)
            {
                v.close();
            }
        }
    }

    private void startThree(final long snapshotEvery) throws IOException
    {
        voters = List.of(new ClusterSettings.Voter(1, "127.0.0.1", freePort()),
            new ClusterSettings.Voter(2, "127.0.0.1", freePort()), new ClusterSettings.Voter(3, "127.0.0.1", freePort()));
        for (int id = 1; id <= 3; id++)
        {
            views.add(start(id, snapshotEvery));
        }
        for (final RatisClusterView v : views)
        {
            assertTrue(v.join().join().accepted());
        }
        awaitAgreement();
    }

    private RatisClusterView start(final int id, final long snapshotEvery)
    {
        final ClusterSettings settings = new ClusterSettings(voters, 1, 3, LEASE_MS, 1.1, dir.resolve("n" + id));
        return RatisClusterView.startManual(settings, ClusterTransitionsTest.member(id), clock::get, snapshotEvery);
    }

    private RatisClusterView view(final int id)
    {
        return views.get(id - 1);
    }

    private RatisClusterView leader()
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline)
        {
            for (final RatisClusterView v : views)
            {
                if (v != null && v.voter().isLeader())
                {
                    return v;
                }
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no leader within 30 s");
    }

    /** Every running voter's state machine holds the same state as the leader's. */
    private void awaitAgreement()
    {
        await("voters agree", () ->
        {
            final CoordState lead = leader().voter().stateMachine().state();
            return views.stream().filter(v -> v != null)
                .allMatch(v -> v.voter().stateMachine().state().equals(lead)) && !lead.cluster().ranges().isEmpty();
        });
    }

    @Test
    void shouldAgreeOnOneLayoutAcrossThreeVoters() throws IOException
    {
        startThree(RatisClusterView.SNAPSHOT_EVERY);
        final ClusterState c = view(2).voter().stateMachine().state().cluster();
        assertEquals(3, c.members().size());
        assertEquals(3, c.ranges().size());
        for (final RatisClusterView v : views)
        {
            await("each view publishes the layout", () -> v.current().equals(c));
        }
        assertEquals(List.of(2), c.ranges().get(0).backups());
    }

    @Test
    void shouldApplyACommandExactlyOnceOnEveryVoter() throws IOException
    {
        startThree(RatisClusterView.SNAPSHOT_EVERY);
        final long before = view(1).voter().stateMachine().appliedCommands();
        final CommandReply reply = view(3).renew().join();
        assertTrue(reply.accepted());
        awaitAgreement();
        for (final RatisClusterView v : views)
        {
            assertEquals(1, v.voter().stateMachine().state().renewalsOf(3), "one renewal, applied once");
        }
        assertEquals(before + 1, view(1).voter().stateMachine().appliedCommands());
    }

    @Test
    void shouldAnswerARenewalWithoutTheStateOnlyWhenTheNodesEpochIsCurrent() throws IOException
    {
        startThree(RatisClusterView.SNAPSHOT_EVERY);
        final long epoch = leader().voter().stateMachine().state().cluster().epoch();
        await("node 3 holds the current epoch", () -> view(3).coordState().cluster().epoch() == epoch);
        final CommandReply current = view(3).renew().join();
        assertTrue(current.accepted() && current.stateOmitted(), "node 3's configuration is current: no state");
        assertEquals(epoch, current.epoch());
        final CommandReply behind = view(3).submit(new ClusterCommand.Renew(3, epoch - 1)).join();
        assertTrue(behind.accepted());
        assertFalse(behind.stateOmitted(), "a node behind gets the state");
        assertEquals(epoch, behind.state().cluster().epoch());
        assertEquals(2, behind.state().renewalsOf(3), "both renewals applied");
        final CommandReply asks = view(3).submit(new ClusterCommand.Renew(3)).join();
        assertFalse(asks.stateOmitted(), "a renewal without an epoch (an older node's) gets the state");
        // Once the configuration moves on, the next renewal from the old epoch gets the new state. (The failover
        // raises the epoch; node 1 releasing the range it lost, when it sees that, may raise it once more.)
        assertTrue(view(1).submit(new ClusterCommand.Failover(0, 2)).join().accepted());
        final CommandReply after = view(3).submit(new ClusterCommand.Renew(3, epoch)).join();
        assertFalse(after.stateOmitted());
        assertTrue(after.state().cluster().epoch() > epoch, after.state().cluster().toString());
        assertTrue(view(3).coordState().cluster().epoch() >= after.state().cluster().epoch(), "the node takes it");
    }

    @Test
    void shouldLetARestartedVoterCatchUpFromASnapshot() throws IOException
    {
        startThree(3);
        view(3).close();
        views.set(2, null);
        leader(); // node 3 may have led: wait for the others to elect one
        // More entries than the snapshot gap: the others snapshot and purge their logs.
        for (int i = 0; i < 12; i++)
        {
            assertTrue(view(1 + (i % 2)).renew().join().accepted());
        }
        final CommandReply moved = view(1).submit(new ClusterCommand.Failover(0, 2)).join();
        assertTrue(moved.accepted(), moved.refusal());
        views.set(2, start(3, 3));
        awaitAgreement();
        final CoordState caughtUp = view(3).voter().stateMachine().state();
        assertEquals(2, caughtUp.cluster().ranges().get(0).primary());
        assertEquals(6, caughtUp.renewalsOf(1));
    }

    @Test
    void shouldRaiseEpochsMonotonicallyAndTellListenersInOrder() throws IOException
    {
        startThree(RatisClusterView.SNAPSHOT_EVERY);
        final List<Long> seen = new CopyOnWriteArrayList<>();
        view(2).subscribe(c -> seen.add(c.epoch()));
        final long start = view(2).current().epoch();
        assertTrue(view(1).submit(new ClusterCommand.Failover(0, 2)).join().accepted());
        // Node 1, the old primary, releases the range on its own once its listeners saw the failover (one epoch more).
        assertTrue(view(3).submit(new ClusterCommand.AddReplica(0, 3)).join().accepted());
        assertFalse(view(3).submit(new ClusterCommand.Failover(0, 3)).join().accepted(), "3 is not in sync for 0");
        await("node 1 released the range and the listener saw the last epoch", () ->
        {
            final ClusterState now = view(2).current();
            return now.ranges().get(0).state() == SlotRange.State.LIVE && !seen.isEmpty() &&
                seen.get(seen.size() - 1) == now.epoch() && now.epoch() == start + 3;
        });
        for (int i = 1; i < seen.size(); i++)
        {
            assertTrue(seen.get(i) > seen.get(i - 1), "epochs rise: " + seen);
        }
    }

    @Test
    void shouldFailOverASilentNodeOnlyAfterLeaseTimesDriftAndKeepARenewingOne() throws IOException
    {
        startThree(RatisClusterView.SNAPSHOT_EVERY);
        final RatisClusterView leader = leader();
        final int silent = leader.localNodeId() == 3 ? 2 : 3;
        final SlotRange before = rangeOfPrimary(leader.voter().stateMachine().state().cluster(), silent);
        final int backup = before.backups().get(0);
        final long epoch = leader.voter().stateMachine().state().cluster().epoch();
        // Time moves in lease/3 steps; every node but the silent one renews at each step.
        final long expiry = (long)Math.ceil(LEASE * 1.1);
        final long start = clock.get();
        boolean failedOver = false;
        for (int step = 1; step <= 9 && !failedOver; step++)
        {
            clock.addAndGet(LEASE / 3);
            for (final RatisClusterView v : views)
            {
                if (v.localNodeId() != silent)
                {
                    assertTrue(v.renew().join().accepted());
                    assertTrue(v.holdsLease(clock.get()), "a renewing node keeps its lease");
                }
            }
            assertEquals(clock.get() - start >= LEASE, !view(silent).holdsLease(clock.get()),
                "the silent node stops at send + lease on its own clock");
            final List<ClusterCommand.FailNode> decided = leader.superviseLeases();
            if (clock.get() - start < expiry)
            {
                assertEquals(List.of(), decided, "nothing is decided before lease * drift");
            }
            else
            {
                assertEquals(1, decided.size());
                assertEquals(silent, decided.get(0).nodeId());
                failedOver = true;
            }
        }
        assertTrue(failedOver);
        await("the failover is committed", () -> leader.voter().stateMachine().state().isFailed(silent));
        final ClusterState after = leader.voter().stateMachine().state().cluster();
        assertEquals(epoch + 1, after.epoch());
        final SlotRange promoted = after.rangeOf(before.firstSlot());
        assertEquals(backup, promoted.primary(), "its first in-sync backup is the new primary");
        assertEquals(epoch + 1, promoted.epoch());
        for (final SlotRange r : after.ranges())
        {
            assertFalse(r.hasReplica(silent), "the failed node holds nothing: " + r);
        }
        final CommandReply refused = view(silent).renew().join();
        assertNotNull(refused);
        assertFalse(refused.accepted(), "a failed node must rejoin before it renews");
        assertTrue(view(silent).join().join().accepted());
        await("it is back as a learner", () -> leader.voter().stateMachine().state().cluster()
            .rangeOf(before.firstSlot()).learners().contains(silent));
    }

    private static SlotRange rangeOfPrimary(final ClusterState c, final int node)
    {
        return c.ranges().stream().filter(r -> r.primary() == node).findFirst().orElseThrow();
    }

    private static void await(final String what, final BooleanSupplier condition)
    {
        GroupAwait.until(what, Duration.ofSeconds(30), condition);
    }

    static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0))
        {
            return s.getLocalPort();
        }
    }
}
