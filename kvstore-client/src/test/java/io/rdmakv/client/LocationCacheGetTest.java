package io.rdmakv.client;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * GETs through the location cache against a pool laid out by the protocol's flyweights and read over the real TCP
 * transport, where the test plays the server's writer exactly (supersede = new extent, RETIRED mark, slot store) and
 * counts the reads the node's transport answered: a remembered key costs one batch of two reads (the extent and the
 * slot's ownership word, one round trip), and every way an entry goes stale
 * ends in the full protocol and the right answer.
 */
@Timeout(30)
class LocationCacheGetTest
{
    @AutoClose
    private final LaidOutPoolNode node = new LaidOutPoolNode();

    @Test
    void shouldServeARememberedKeyWithExactlyOneRead()
    {
        node.put("alpha", "one");
        try (KvClient client = node.client().build())
        {
            final long before = node.readsServed();
            assertArrayEquals(bytes("one"), client.get(bytes("alpha")));
            assertEquals(5, node.readsServed() - before,
                "first GET: two buckets + header + ownership word, then the extent");
            assertEquals(1, counter(client, ClientCounter.GET_CACHE_MISSES));

            for (int i = 0; i < 10; i++)
            {
                final long reads = node.readsServed();
                assertArrayEquals(bytes("one"), client.get(bytes("alpha")));
                assertEquals(2, node.readsServed() - reads, "a remembered key: the extent and the ownership word, one batch");
            }
            assertEquals(10, counter(client, ClientCounter.GET_CACHE_HITS));
            assertEquals(11, counter(client, ClientCounter.GET_ONE_SIDED_HITS), "cache hits are one-sided hits too");
            assertEquals(0, counter(client, ClientCounter.GET_CACHE_INVALIDATIONS));
            assertEquals(0, node.requests.get());
        }
    }

    @Test
    void shouldNeverServeASupersededValueFromTheCache()
    {
        final long first = node.put("k", "old value");
        node.complete(true);
        try (KvClient client = node.client().build())
        {
            assertArrayEquals(bytes("old value"), client.get(bytes("k")));
            assertArrayEquals(bytes("old value"), client.get(bytes("k")));
            assertEquals(1, counter(client, ClientCounter.GET_CACHE_HITS));

            // Another client's update: the old extent stays intact (grace period) but is marked RETIRED.
            node.replace(first, "k", "new value");
            final long reads = node.readsServed();
            assertArrayEquals(bytes("new value"), client.get(bytes("k")), "never the old value");
            assertEquals(2 + 5, node.readsServed() - reads,
                "the cached read (extent + word), then buckets + header + word + extent");
            assertEquals(1, counter(client, ClientCounter.GET_CACHE_INVALIDATIONS));

            // The full protocol re-learnt the new place.
            final long again = node.readsServed();
            assertArrayEquals(bytes("new value"), client.get(bytes("k")));
            assertEquals(2, node.readsServed() - again);
            assertEquals(2, counter(client, ClientCounter.GET_CACHE_HITS));
            assertEquals(0, node.requests.get(), "all of it one-sided");
        }
    }

    @Test
    void shouldAnswerNotFoundForADeletedOrEvictedKey()
    {
        final long entry = node.put("gone", "soon");
        node.complete(true);
        try (KvClient client = node.client().build())
        {
            assertArrayEquals(bytes("soon"), client.get(bytes("gone")));
            node.remove("gone", entry);
            assertNull(client.get(bytes("gone")), "a delete (or an eviction) retires the extent first");
            assertEquals(1, counter(client, ClientCounter.GET_CACHE_INVALIDATIONS));
            assertEquals(1, counter(client, ClientCounter.GET_MISSES), "the index's answer: a definitive miss");
            assertNull(client.get(bytes("gone")));
            assertEquals(1, counter(client, ClientCounter.GET_CACHE_INVALIDATIONS), "forgotten, not re-read");
        }
    }

    @Test
    void shouldSeeThroughAnExtentReusedForAnotherKey()
    {
        final long entry = node.put("mine", "my value");
        node.complete(true);
        try (KvClient client = node.client().build())
        {
            assertArrayEquals(bytes("my value"), client.get(bytes("mine")));
            // "mine" moves elsewhere, and after the grace period the writer reuses its old offset for another key:
            // the reused extent is intact and LIVE, only its key (and version) give it away.
            node.replace(entry, "mine", "moved");
            node.rewriteInPlace(entry, bytes("yours"), bytes("your value"), 1000);
            assertArrayEquals(bytes("moved"), client.get(bytes("mine")));
            assertEquals(1, counter(client, ClientCounter.GET_CACHE_INVALIDATIONS));
            assertEquals(0, node.requests.get());
        }
    }

    @Test
    void shouldDropALocationWhoseExtentReadsTorn()
    {
        final long entry = node.put("t", "whole");
        try (KvClient client = node.client().build())
        {
            assertArrayEquals(bytes("whole"), client.get(bytes("t")));
            node.tear(entry);
            assertArrayEquals(bytes("whole"), client.get(bytes("t")), "the node's answer after the retries");
            assertEquals(1, counter(client, ClientCounter.GET_CACHE_INVALIDATIONS));
            assertEquals(1, counter(client, ClientCounter.GET_FALLBACKS));
        }
    }

    @Test
    void shouldReadThroughTheIndexEveryTimeWithTheCacheOff()
    {
        node.put("alpha", "one");
        try (KvClient client = node.client().locationCacheEntries(0).build())
        {
            for (int i = 0; i < 5; i++)
            {
                final long reads = node.readsServed();
                assertArrayEquals(bytes("one"), client.get(bytes("alpha")));
                assertEquals(5, node.readsServed() - reads);
            }
            assertEquals(0, counter(client, ClientCounter.GET_CACHE_HITS));
            assertEquals(0, counter(client, ClientCounter.GET_CACHE_MISSES), "no cache, no misses counted");
            assertEquals(5, counter(client, ClientCounter.GET_ONE_SIDED_HITS));
        }
    }

    private static long counter(final KvClient client, final ClientCounter counter)
    {
        return client.diagnostics().counters().get(counter);
    }
}
