package io.rdmakv.client;

import io.rdmakv.client.internal.ReadLease;
import io.rdmakv.protocol.layout.SlotOwnershipTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The reader's half of invariant 7 on a laid-out pool whose ownership words and lease grants the test sets: a GET is
 * answered from the pool only under a LIVE word at the map's epoch and within the client's read lease, whose clock
 * the test runs by hand.
 */
class ReadSafetyTest
{
    @AutoClose
    private final LaidOutPoolNode node = new LaidOutPoolNode();
    private final AtomicLong clientClock = new AtomicLong(1_000_000_000L);

    @AfterEach
    void restoreClock()
    {
        ReadLease.useClock(null);
    }

    @Test
    void shouldNotReturnThePoolsValueUnderAFencedWord()
    {
        node.put("k", "in-the-pool");
        node.store.put("k", bytes("from-the-node"));
        try (KvClient client = node.client().build())
        {
            assertArrayEquals(bytes("in-the-pool"), client.get(bytes("k")), "LIVE: the pool answers");
            node.ownership(LaidOutPoolNode.hashSlot("k"), SlotOwnershipTable.STATE_FENCED, 1);
            assertArrayEquals(bytes("from-the-node"), client.get(bytes("k")), "the cached location is not trusted");
            assertArrayEquals(bytes("from-the-node"), client.get(bytes("k")));
            assertEquals(2, client.diagnostics().counters().get(ClientCounter.GET_OWNERSHIP_REFUSALS));
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS));
            assertEquals(2, node.requests.get());
        }
    }

    @Test
    void shouldRefuseAWordOlderThanTheMapAndNotOwnedHashSlotsOnTheFullPath()
    {
        node.put("a", "pool-a");
        node.store.put("a", bytes("node-a"));
        node.put("b", "pool-b");
        node.store.put("b", bytes("node-b"));
        node.ownership(LaidOutPoolNode.hashSlot("a"), SlotOwnershipTable.STATE_NOT_OWNER, 0);
        node.ownership(LaidOutPoolNode.hashSlot("b"), SlotOwnershipTable.STATE_MIGRATING, 3);
        try (KvClient client = node.client().build())
        {
            assertArrayEquals(bytes("node-a"), client.get(bytes("a")), "never published: not served one-sided");
            assertArrayEquals(bytes("pool-b"), client.get(bytes("b")), "MIGRATING: the primary still serves");
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_OWNERSHIP_REFUSALS));
            assertEquals(1, node.requests.get(), "only the refused GET asked the node");
        }
    }

    @Test
    void shouldTrustAWordOnlyAtTheRangeEpochOfTheMapTheGetWasRoutedByOrNewer()
    {
        node.mapRangeEpoch = 2;
        node.put("k", "in-the-pool");
        node.store.put("k", bytes("from-the-node"));
        final int hashSlot = LaidOutPoolNode.hashSlot("k");
        try (KvClient client = node.client().build())
        {
            assertArrayEquals(bytes("from-the-node"), client.get(bytes("k")), "LIVE at 1, the map says 2: refused");
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_OWNERSHIP_REFUSALS));
            assertEquals(1, node.requests.get());

            node.ownership(hashSlot, SlotOwnershipTable.STATE_LIVE, 2);
            assertArrayEquals(bytes("in-the-pool"), client.get(bytes("k")), "LIVE at the map's epoch");
            node.ownership(hashSlot, SlotOwnershipTable.STATE_LIVE, 3);
            assertArrayEquals(bytes("in-the-pool"), client.get(bytes("k")), "LIVE at a newer epoch: cached read");
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_CACHE_HITS));

            node.ownership(hashSlot, SlotOwnershipTable.STATE_LIVE, 1);
            assertArrayEquals(bytes("from-the-node"), client.get(bytes("k")), "back to 1: the cached read refused");
            assertEquals(2, client.diagnostics().counters().get(ClientCounter.GET_OWNERSHIP_REFUSALS));
            assertEquals(2, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS));
            assertEquals(2, node.requests.get(), "only the refused GETs asked the node");
        }
    }

    @Test
    void shouldRenewAnExpiredLeaseByAskingTheNodeThenReadOneSidedAgain()
    {
        ReadLease.useClock(clientClock::get);
        node.readLeaseGrant = 1_100;
        node.put("k", "v");
        try (KvClient client = node.client().build())
        {
            // The ATTACH answer granted 1100 ms: 1000 ms on this client's clock at the 1.1 drift bound.
            assertArrayEquals(bytes("v"), client.get(bytes("k")));
            assertEquals(0, node.requests.get());
            assertEquals(0, client.diagnostics().counters().get(ClientCounter.GET_LEASE_RENEWALS));

            clientClock.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
            assertArrayEquals(bytes("v"), client.get(bytes("k")));
            assertEquals(0, node.requests.get(), "999 ms after the send: still held");

            clientClock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
            node.store.put("k", bytes("v"));
            assertArrayEquals(bytes("v"), client.get(bytes("k")));
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_LEASE_RENEWALS), "expired: renewed");
            assertEquals(1, node.requests.get(), "by one RPC to the node");

            assertArrayEquals(bytes("v"), client.get(bytes("k")));
            assertEquals(1, node.requests.get(), "the RPC's answer renewed the lease: one-sided again");
            assertEquals(3, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS));
        }
    }

    @Test
    void shouldNeverReadOneSidedFromANodeThatGrantsNoLease()
    {
        ReadLease.useClock(clientClock::get);
        node.readLeaseGrant = 0;
        node.put("k", "pool");
        node.store.put("k", bytes("node"));
        try (KvClient client = node.client().build())
        {
            for (int i = 0; i < 3; i++)
            {
                assertArrayEquals(bytes("node"), client.get(bytes("k")));
            }
            assertEquals(3, client.diagnostics().counters().get(ClientCounter.GET_LEASE_RENEWALS));
            assertEquals(0, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS));
        }
    }
}
