package io.rdmakv.client.internal;

import io.rdmakv.protocol.wire.ResponseFlyweight;
import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReadLeaseTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void shouldHoldFromTheSendForTheGrantScaledDownByTheDrift()
    {
        final ReadLease lease = new ReadLease(1.25);
        assertFalse(lease.holds(0), "nothing granted yet");
        lease.granted(1_000 * MS, 1_000);
        assertTrue(lease.holds(1_000 * MS));
        assertTrue(lease.holds(1_799 * MS));
        assertFalse(lease.holds(1_800 * MS), "1000 ms / 1.25 = 800 ms after the send");
    }

    @Test
    void shouldOnlyMoveForwardAndIgnoreNoGrant()
    {
        final ReadLease lease = new ReadLease(1.0);
        lease.granted(0, 500);
        lease.granted(100 * MS, 100);
        assertTrue(lease.holds(499 * MS), "a shorter later grant does not shorten it");
        lease.granted(600 * MS, ResponseFlyweight.READ_LEASE_NONE);
        assertFalse(lease.holds(600 * MS));
        lease.granted(600 * MS, ResponseFlyweight.READ_LEASE_UNBOUNDED);
        assertTrue(lease.holds(Long.MAX_VALUE - 1));
        assertTrue(lease.holds(Long.MIN_VALUE + 1));
        lease.granted(0, 10);
        assertTrue(lease.holds(1_000_000 * MS), "unbounded stays unbounded");
        lease.revoke();
        assertFalse(lease.holds(0));
        assertThrows(IllegalArgumentException.class, () -> new ReadLease(0.9));
        assertThrows(IllegalArgumentException.class, () -> ReadLease.parseDrift("fast"));
    }

    /**
     * The rule the design rests on: whatever the clocks' rates within the drift bound, the message delays and the
     * margin, the client's lease ends (in real time) before the node's lease does. Node lease: renewal sent at node
     * time 0, holds for L on the node's clock. The node grants at its time g the remaining lease minus the margin,
     * floored to ms; the client sent the request before the node received it and times the grant from its send.
     */
    @Test
    void shouldAlwaysEndTheClientLeaseBeforeTheNodeLease()
    {
        final Random random = new Random(7);
        for (int i = 0; i < 200_000; i++)
        {
            final double drift = 1.0 + random.nextDouble() * 0.5;
            // Clock rates (clock ns per real ns) within a factor drift of each other, either one the faster.
            final double nodeRate = 1.0 + random.nextDouble() * (drift - 1.0);
            final double factor = 1.0 / drift + random.nextDouble() * (drift - 1.0 / drift);
            final double clientRate = nodeRate / factor;
            final long leaseNanos = (100 + random.nextInt(10_000)) * MS;
            final long marginNanos = (1 + random.nextInt(50)) * MS;
            // Real times: the node's renewal was sent at 0; the client sends at s, the node answers at g >= s.
            final double grantReal = random.nextDouble() * leaseNanos / nodeRate;
            final double sendReal = grantReal - random.nextDouble() * 5 * MS;
            final long nodeNow = (long)(grantReal * nodeRate);
            final long remaining = leaseNanos - nodeNow - marginNanos;
            if (remaining <= 0)
            {
                continue;
            }
            final int grantMillis = (int)Math.min(TimeUnit.NANOSECONDS.toMillis(remaining),
                ResponseFlyweight.READ_LEASE_MAX_MILLIS);
            final double clientLeaseEndReal = sendReal + ReadLease.scaledNanos(grantMillis, drift) / clientRate;
            final double nodeLeaseEndReal = leaseNanos / nodeRate;
            assertTrue(clientLeaseEndReal < nodeLeaseEndReal, () -> "client lease ends at " + clientLeaseEndReal +
                " real ns, node lease at " + nodeLeaseEndReal + " (drift " + drift + ", node rate " + nodeRate +
                ", client rate " + clientRate + ", grant " + grantMillis + " ms)");
        }
    }
}
