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
    void shouldLetANewLeaderWaitAFullLeaseTimesDriftBeforeDecidingAnything()
    {
        final CoordState s = ClusterTransitionsTest.threeNodes();
        final LeaseWatchdog w = new LeaseWatchdog(LEASE, DRIFT);
        w.applied(3, 0); // applied as a follower long ago
        final long elected = 10 * LEASE;
        w.becameLeader(elected);
        assertEquals(List.of(), w.expired(s, elected + EXPIRY - 1), "a new leader waits a full lease * drift");
        assertEquals(3, w.expired(s, elected + EXPIRY).size(), "then every silent node expires");
        w.lostLeadership();
        assertEquals(List.of(), w.expired(s, elected + 10 * EXPIRY), "a follower decides nothing");
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
