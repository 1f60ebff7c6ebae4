package io.rdmakv.server.cluster;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one decision "taken over, backups remain", what is served by it, and its release. Node 2 is this node. */
class TakeOversTest
{
    private static final List<ClusterMember> MEMBERS = List.of(new ClusterMember(1, "127.0.0.1", 7001, 8001),
        new ClusterMember(2, "127.0.0.1", 7002, 8002), new ClusterMember(3, "127.0.0.1", 7003, 8003));
    private static final int HALF = ClusterState.HASH_SLOT_COUNT / 2;

    private final TakeOvers takeOvers = new TakeOvers(2);
    private final List<ClusterState> served = new ArrayList<>();

    /** Two ranges: the first with {@code primary} and {@code backups}, the second node 3's with no backup. */
    private static ClusterState state(final long epoch, final int primary, final List<Integer> backups)
    {
        return new ClusterState(epoch, MEMBERS, List.of(
            new SlotRange(0, HALF - 1, epoch, primary, backups, List.of(), SlotRange.State.LIVE),
            new SlotRange(HALF, ClusterState.HASH_SLOT_COUNT - 1, 1, 3, List.of(), List.of(), SlotRange.State.LIVE)));
    }

    @Test
    void shouldHoldARangeTakenOverWithBackupsAndServeItFencedUntilReleased()
    {
        takeOvers.subscribe(served::add);
        takeOvers.deliver(state(1, 1, List.of(2, 3)));
        assertFalse(takeOvers.holds(0), "node 2 is a backup");
        takeOvers.deliver(state(2, 2, List.of(3)));

        assertTrue(takeOvers.holds(0));
        assertTrue(takeOvers.holds(HALF - 1));
        assertFalse(takeOvers.holds(HALF), "node 3's range");
        assertEquals(List.of(new TakeOvers.Hold(0, HALF - 1, 1)), takeOvers.held());
        final ClusterState fenced = served.get(served.size() - 1);
        assertEquals(SlotRange.State.FENCED, fenced.rangeOf(0).state(), "served FENCED: reads re-routed too");
        assertEquals(2, fenced.rangeOf(0).epoch());
        assertEquals(SlotRange.State.LIVE, fenced.rangeOf(HALF).state());

        takeOvers.deliver(state(3, 2, List.of(3))); // a newer epoch, still this node's: still held
        assertTrue(takeOvers.holds(0));
        assertEquals(3, served.get(served.size() - 1).rangeOf(0).epoch());

        takeOvers.release(takeOvers.held().get(0));
        assertFalse(takeOvers.holds(0));
        assertEquals(SlotRange.State.LIVE, served.get(served.size() - 1).rangeOf(0).state(), "served as the view says");
        assertEquals(served.get(served.size() - 1), takeOvers.served());
    }

    @Test
    void shouldDecideOnTheRequestThreadButPublishOnlyWhatTheViewDelivered()
    {
        takeOvers.subscribe(served::add);
        takeOvers.deliver(state(1, 1, List.of(2, 3)));
        final ClusterState next = state(2, 2, List.of(3));
        takeOvers.observe(next); // the request thread takes the state before the view's listener delivers it
        assertTrue(takeOvers.holds(0), "held from the first sight: no write passes");
        assertEquals(1, served.size(), "routing and ownership words still follow what was delivered");
        assertEquals(1, served.get(0).rangeOf(0).primary());

        takeOvers.deliver(next);
        assertEquals(2, served.size());
        assertEquals(SlotRange.State.FENCED, served.get(1).rangeOf(0).state(), "the decision made before is served");

        final TakeOvers early = new TakeOvers(2);
        final List<ClusterState> published = new ArrayList<>();
        early.subscribe(published::add);
        early.deliver(state(1, 1, List.of(2, 3)));
        early.observe(next);
        early.release(early.held().get(0)); // reconciled before the state was delivered
        early.deliver(next);
        assertEquals(SlotRange.State.LIVE, published.get(published.size() - 1).rangeOf(0).state());
    }

    @Test
    void shouldHoldNothingWithoutBackupsOrWhenThisNodeWasNotABackupOrWasPrimary()
    {
        takeOvers.observe(state(1, 1, List.of(2)));
        takeOvers.observe(state(2, 2, List.of()));
        assertFalse(takeOvers.holds(0), "no backup remains: nothing to reconcile");

        final TakeOvers fresh = new TakeOvers(2);
        fresh.observe(state(1, 1, List.of(3)));
        fresh.observe(state(2, 2, List.of(3)));
        assertFalse(fresh.holds(0), "node 2 was no backup: it has nothing of node 1's in flight");

        final TakeOvers first = new TakeOvers(2);
        first.observe(state(1, 2, List.of(3)));
        assertFalse(first.holds(0), "the first state known: no change of primary seen");
        first.observe(state(2, 2, List.of(3, 1)));
        assertFalse(first.holds(0), "primary before and after");
    }

    @Test
    void shouldDropAHoldWhenTheRangeIsNoLongerThisNodesAndIgnoreOlderStates()
    {
        takeOvers.observe(state(1, 1, List.of(2, 3)));
        takeOvers.observe(state(3, 2, List.of(3)));
        final TakeOvers.Hold hold = takeOvers.held().get(0);
        takeOvers.observe(state(2, 1, List.of(2, 3))); // delivered late: older than what was seen
        assertTrue(takeOvers.holds(0), "an older state changes nothing");

        takeOvers.observe(state(4, 3, List.of(2)));
        assertFalse(takeOvers.holds(0), "node 3's now: routed there, nothing to hold here");
        takeOvers.observe(state(5, 2, List.of(3)));
        assertTrue(takeOvers.holds(0), "taken over again from node 3: a new hold");
        assertEquals(3, takeOvers.held().get(0).previousPrimary());
        takeOvers.release(hold);
        assertTrue(takeOvers.holds(0), "the end of an earlier reconcile does not release a later hold");
    }
}
