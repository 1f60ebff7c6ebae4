package io.rdmakv.server.cluster;

import io.rdmakv.protocol.wire.ResponseFlyweight;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReadLeaseGrantTest
{
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final LeaseView view = new LeaseView();
    private final ReadLeaseGrant grant = new ReadLeaseGrant(view, now::get, TimeUnit.MILLISECONDS.toNanos(100));

    @Test
    void shouldGrantTheRemainingNodeLeaseMinusTheMarginRoundedDown()
    {
        view.deadline = now.get() + TimeUnit.MILLISECONDS.toNanos(2_000) + 999_999;
        assertEquals(1_900, grant.grantMillis());
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1_500));
        assertEquals(400, grant.grantMillis());
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(450));
        assertEquals(ResponseFlyweight.READ_LEASE_NONE, grant.grantMillis(), "within the margin of the end");
    }

    @Test
    void shouldGrantNothingWithoutALeaseAndUnboundedWithoutNodeLeases()
    {
        view.deadline = now.get() + TimeUnit.SECONDS.toNanos(5);
        view.holds = false;
        assertEquals(ResponseFlyweight.READ_LEASE_NONE, grant.grantMillis());
        view.deadline = Long.MAX_VALUE;
        assertEquals(ResponseFlyweight.READ_LEASE_UNBOUNDED, grant.grantMillis());
        assertEquals(ResponseFlyweight.READ_LEASE_UNBOUNDED, ReadLeaseGrant.UNBOUNDED.grantMillis());
        view.holds = true;
        view.deadline = now.get() + TimeUnit.SECONDS.toNanos(600);
        assertEquals(ResponseFlyweight.READ_LEASE_MAX_MILLIS, grant.grantMillis(), "capped to the field");
        assertThrows(IllegalArgumentException.class, () -> new ReadLeaseGrant(view, now::get, -1));
    }

    @Test
    void shouldRunAScaledClockAtItsRate()
    {
        final AtomicLong base = new AtomicLong(500);
        final var fast = NodeClock.scaled(base::get, 1.5);
        final long t0 = fast.nanoTime();
        base.addAndGet(1_000_000);
        assertEquals(1_500_000, fast.nanoTime() - t0);
        final var slow = NodeClock.scaled(base::get, 0.5);
        final long s0 = slow.nanoTime();
        base.addAndGet(1_000_000);
        assertEquals(500_000, slow.nanoTime() - s0);
        assertThrows(IllegalArgumentException.class, () -> NodeClock.scaled(base::get, 0));
        assertThrows(IllegalArgumentException.class, () -> NodeClock.parseRate("fast"));
    }

    /** A view whose lease the test sets. */
    private static final class LeaseView implements ClusterView
    {
        volatile long deadline;
        volatile boolean holds = true;

        @Override
        public int localNodeId()
        {
            return 1;
        }

        @Override
        public ClusterState current()
        {
            return new ClusterState(1, List.of(new ClusterMember(1, "h", 1, 2)), List.of());
        }

        @Override
        public void subscribe(final Consumer<ClusterState> listener)
        {
        }

        @Override
        public CompletableFuture<ClusterState> removeFromInSync(final int firstSlot, final long rangeEpoch, final int nodeId)
        {
            return CompletableFuture.failedFuture(new UnsupportedOperationException());
        }

        @Override
        public CompletableFuture<ClusterState> promoteLearner(final int firstSlot, final long rangeEpoch, final int nodeId)
        {
            return CompletableFuture.failedFuture(new UnsupportedOperationException());
        }

        @Override
        public boolean holdsLease(final long nowNanos)
        {
            return holds && deadline - nowNanos > 0;
        }

        @Override
        public long leaseDeadlineNanos()
        {
            return deadline;
        }

        @Override
        public void close()
        {
        }
    }
}
