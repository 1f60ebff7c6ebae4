package io.rdmakv.server.cluster.ratis;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Leases on injected clocks: every instant is a number the test chooses. */
class LeaseWatchdogTest
{
    private static final long LEASE = 1_000_000_000L; // 1 s
    private static final double DRIFT = 1.1;
    private static final long EXPIRY = 1_100_000_000L;

    @Test
    void shouldDeclareALeaseExpiredOnlyAfterLeaseTimesDriftFromTheLastAppliedRenewal()
    {
        final CoordState s = ClusterTransitionsTest.threeNodes();
        final LeaseWatchdog w = new LeaseWatchdog(LEASE, DRIFT);
        w.becameLeader(0);
        for (int id = 1; id <= 3; id++)
        {
            w.applied(id, 0);
        }
        // Nodes 1 and 2 keep renewing every lease/3; node 3 stops after t = 0.
        long t = 0;
        while (t < 5 * LEASE)
        {
            t += LEASE / 3;
            w.applied(1, t);
            w.applied(2, t);
            final List<ClusterCommand.FailNode> expired = w.expired(s, t);
            if (t < EXPIRY)
            {
                assertEquals(List.of(), expired, "nothing expires before lease * drift, at " + t);
            }
            else
            {
                assertEquals(List.of(new ClusterCommand.FailNode(3, s.renewalsOf(3))), expired,
                    "only the silent node, with the renewal count seen, at " + t);
            }
        }
    }

    @Test
    void shouldLetANewLeaderDecideFromTheRenewalsItAppliedAsAFollowerAfterTheElectionGrace()
    {
        final CoordState s = ClusterTransitionsTest.threeNodes();
        final LeaseWatchdog w = new LeaseWatchdog(LEASE, DRIFT);
        w.applied(1, 0); // applied as a follower long ago: node 1 went silent then
        final long elected = 10 * LEASE;
        w.applied(2, elected); // node 2 renews; node 3's state came from a snapshot (no renewal here)
        assertEquals(List.of(), w.expired(s, elected), "a follower decides nothing");
        w.becameLeader(elected);
        assertEquals(LEASE / 3, w.electionGraceNanos());
        final long firstLook = elected + LEASE / 3 - 1;
        assertEquals(List.of(), w.expired(s, firstLook), "every member gets the grace from the election");
        assertEquals(List.of(new ClusterCommand.FailNode(1, s.renewalsOf(1))), w.expired(s, elected + LEASE / 3),
            "node 1's last renewal applied here is older than lease * drift: it fails once the grace is over");
        // From here the group keeps applying renewals (another live member's, id 4, outside this state): no stall.
        keepApplying(w, 4, elected + LEASE / 3, elected + EXPIRY - 1);
        assertEquals(List.of(new ClusterCommand.FailNode(1, s.renewalsOf(1))), w.expired(s, elected + EXPIRY - 1),
            "node 2 is timed from its renewal, node 3 from when the leader first looked");
        keepApplying(w, 4, elected + EXPIRY - 1, elected + EXPIRY);
        assertEquals(List.of(1, 2), w.expired(s, elected + EXPIRY).stream().map(ClusterCommand.FailNode::nodeId)
            .sorted().toList());
        keepApplying(w, 4, elected + EXPIRY, firstLook + EXPIRY);
        assertEquals(List.of(1, 2, 3), w.expired(s, firstLook + EXPIRY).stream()
            .map(ClusterCommand.FailNode::nodeId).sorted().toList());
        w.lostLeadership();
        assertEquals(List.of(), w.expired(s, elected + 10 * EXPIRY), "a follower decides nothing");
    }

    /** Renewals of {@code nodeId} applied every lease / 4 from {@code from} to {@code to} (both included). */
    private static void keepApplying(final LeaseWatchdog w, final int nodeId, final long from, final long to)
    {
        for (long t = from; t < to; t += LEASE / 4)
        {
            w.applied(nodeId, t);
        }
        w.applied(nodeId, to);
    }

    @Test
    void shouldNotFailLiveNodesWhoseRenewalsCouldNotCommitDuringALongElection()
    {
        // Every node renewed at 0; the leader died and the election took longer than lease * drift, so no renewal
        // committed meanwhile. The new leader gives them the grace to renew, and fails only the one that does not.
        final CoordState s = ClusterTransitionsTest.threeNodes();
        final LeaseWatchdog w = new LeaseWatchdog(LEASE, DRIFT);
        for (int id = 1; id <= 3; id++)
        {
            w.applied(id, 0);
        }
        final long elected = 2 * EXPIRY;
        w.becameLeader(elected);
        assertEquals(List.of(), w.expired(s, elected), "all look expired, but the election has just ended");
        w.applied(1, elected + LEASE / 4); // nodes 1 and 2 renew with the new leader; node 3 died with the old one
        w.applied(2, elected + LEASE / 3);
        // The first renewal applied after the silence starts the grace again (the group committed nothing before).
        assertEquals(List.of(), w.expired(s, elected + LEASE / 4 + LEASE / 3 - 1));
        assertEquals(List.of(new ClusterCommand.FailNode(3, s.renewalsOf(3))),
            w.expired(s, elected + LEASE / 4 + LEASE / 3));
        w.lostLeadership();
        w.becameLeader(elected + 4 * EXPIRY); // a later election: the grace counts from that one
        assertEquals(List.of(), w.expired(s, elected + 4 * EXPIRY + LEASE / 3 - 1));
    }

    @Test
    void shouldNotFailLiveNodesWhileTheGroupAppliesNothingNorBeforeTheGraceAfterItResumes()
    {
        // The leader stays leader, but the group (or the leader's process) stalls: no renewal of anyone applies for
        // longer than lease * drift. Nobody is failed meanwhile; once renewals apply again every member gets the
        // grace, and only the node that does not renew is failed after it.
        final CoordState s = ClusterTransitionsTest.threeNodes();
        final LeaseWatchdog w = new LeaseWatchdog(LEASE, DRIFT);
        w.becameLeader(0);
        for (int id = 1; id <= 3; id++)
        {
            w.applied(id, 0);
        }
        assertEquals(LEASE / 2, w.stallNanos());
        final long resumed = 3 * EXPIRY;
        assertEquals(List.of(), w.expired(s, resumed - 1), "the group applied nothing for 3 leases: no decision");
        w.applied(1, resumed); // the leader's own renewal, first after the stall
        assertEquals(List.of(), w.expired(s, resumed), "all look expired, but renewals have just resumed");
        w.applied(2, resumed + LEASE / 4); // node 2 renews too; node 3 died during the stall
        assertEquals(List.of(), w.expired(s, resumed + LEASE / 3 - 1), "within the grace");
        assertEquals(List.of(new ClusterCommand.FailNode(3, s.renewalsOf(3))), w.expired(s, resumed + LEASE / 3));
    }

    @Test
    void shouldNotDelayTheFailoverOfADeadNodeWhileTheOthersRenew()
    {
        // Gaps of a renewal interval between applies (two live nodes renewing every lease / 3 in step) are no stall:
        // the silent node fails exactly lease * drift after its last renewal.
        final CoordState s = ClusterTransitionsTest.threeNodes();
        final LeaseWatchdog w = new LeaseWatchdog(LEASE, DRIFT);
        w.becameLeader(0);
        for (int id = 1; id <= 3; id++)
        {
            w.applied(id, 0);
        }
        for (long t = LEASE / 3; t <= EXPIRY; t += LEASE / 3)
        {
            w.applied(1, t);
            w.applied(2, t);
        }
        assertEquals(List.of(), w.expired(s, EXPIRY - 1));
        assertEquals(List.of(new ClusterCommand.FailNode(3, s.renewalsOf(3))), w.expired(s, EXPIRY));
    }

    @Test
    void shouldHaveTheGroupRefuseADecisionARenewalAppliedAfterItMadeStale()
    {
        // A new leader decides on the renewals it applied so far; renewals committed earlier but applied only now
        // (they were in its log, committed by the old leader) reach the state machine before its decision does.
        final CoordState s = ClusterTransitionsTest.threeNodes();
        final ClusterCommand.FailNode decision = new ClusterCommand.FailNode(1, s.renewalsOf(1));
        final CoordState renewed = ClusterTransitions.apply(s, new ClusterCommand.Renew(1)).state();
        assertFalse(ClusterTransitions.apply(renewed, decision).accepted(), "node 1 renewed after the decision saw it");
        assertTrue(ClusterTransitions.apply(s, decision).accepted());
    }

    @Test
    void shouldEndTheNodesOwnLeaseBeforeTheLeaderCanDeclareIt()
    {
        // The node sends a renewal at its time 100; the leader applies it later (its time 500 on a clock that may
        // run up to DRIFT slower): the node stops at 100 + LEASE on its clock; the leader waits until 500 + EXPIRY.
        final NodeLease lease = new NodeLease(LEASE);
        assertFalse(lease.holds(0), "no lease before the first committed renewal");
        lease.renewed(100);
        assertTrue(lease.holds(100 + LEASE - 1));
        assertFalse(lease.holds(100 + LEASE));
        lease.renewed(50); // a late answer to an older renewal never shortens it
        assertEquals(100 + LEASE, lease.deadlineNanos());
        lease.revoke();
        assertFalse(lease.holds(101));
        // A node clock running slow by up to DRIFT ends the lease at most LEASE * DRIFT of real time after the
        // send; the leader waits that long from a later instant (its apply), so the node has stopped first.
        assertTrue(EXPIRY >= (long)(LEASE * DRIFT));
        assertThrows(IllegalArgumentException.class, () -> new LeaseWatchdog(LEASE, 0.9));
    }
}
