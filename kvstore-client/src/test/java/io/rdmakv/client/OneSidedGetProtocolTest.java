package io.rdmakv.client;

import io.rdmakv.protocol.layout.PoolHeaderFlyweight;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The one-sided GET protocol against a pool laid out by the protocol's flyweights and read over the real TCP
 * transport: every branch of the state machine, observed through what reached the node and the client's counters.
 */
@Timeout(30)
class OneSidedGetProtocolTest
{
    @AutoClose
    private final LaidOutPoolNode node = new LaidOutPoolNode();

    @Test
    void shouldReadValueFromPoolWithoutAskingTheNode()
    {
        node.put("alpha", "one");
        try (KvClient client = node.client().build())
        {
            assertArrayEquals(bytes("one"), client.get(bytes("alpha")));
            assertEquals(0, node.requests.get(), "a one-sided hit must not send a request");
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS));
            assertEquals(0, client.diagnostics().counters().get(ClientCounter.RPCS));
        }
    }

    @Test
    void shouldAnswerMissWithoutAskingWhenPoolHoldsEveryKey()
    {
        node.put("present", "x");
        node.complete(true);
        try (KvClient client = node.client().build())
        {
            assertNull(client.get(bytes("absent")));
            assertEquals(0, node.requests.get());
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_MISSES));
        }
    }

    @Test
    void shouldAskTheNodeOnMissWhenPoolIsIncomplete()
    {
        node.complete(false);
        node.storeOnly("cold", "from-rocksdb");
        try (KvClient client = node.client().build())
        {
            assertArrayEquals(bytes("from-rocksdb"), client.get(bytes("cold")));
            assertNull(client.get(bytes("nowhere")));
            assertEquals(2, node.requests.get());
            assertEquals(2, client.diagnostics().counters().get(ClientCounter.GET_MISS_LOOKUPS));
            assertEquals(0, client.diagnostics().counters().get(ClientCounter.GET_MISSES));
        }
    }

    @Test
    void shouldRetryTornExtentThenFallBackToRpc()
    {
        final long entry = node.put("torn", "good-value");
        node.tear(entry);
        try (KvClient client = node.client().readRetries(2).build())
        {
            assertArrayEquals(bytes("good-value"), client.get(bytes("torn")), "the node's answer, never torn bytes");
            assertEquals(3, client.diagnostics().counters().get(ClientCounter.GET_TORN_RETRIES), "first read + 2 retries");
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_FALLBACKS));
            assertEquals(1, node.requests.get());
        }
    }

    @Test
    void shouldSkipAnEntryWhoseFingerprintMatchesAnotherKey()
    {
        node.putCollision("wanted", "impostor", "wrong-value");
        node.put("wanted", "right-value");
        node.complete(true);
        try (KvClient client = node.client().build())
        {
            assertArrayEquals(bytes("right-value"), client.get(bytes("wanted")));
            assertEquals(0, node.requests.get());
        }
    }

    @Test
    void shouldConfirmAMissByRpcAfterAFingerprintCollision()
    {
        // A slot whose extent holds another key is either a fingerprint collision or a stale slot whose extent was
        // reused: one-sided reads cannot tell which, so even a COMPLETE pool's miss is confirmed by the server.
        node.putCollision("ghost", "impostor", "wrong-value");
        node.complete(true);
        try (KvClient client = node.client().build())
        {
            assertNull(client.get(bytes("ghost")), "another key's value must never be returned");
            assertEquals(0, client.diagnostics().counters().get(ClientCounter.GET_MISSES), "not a definitive miss");
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_FALLBACKS));
            assertEquals(1, node.requests.get(), "the miss was confirmed by one RPC");
        }
    }

    @Test
    void shouldFetchByRpcWhenExtentExceedsReadBuffer()
    {
        final String big = "v".repeat(300);
        node.put("big", big);
        try (KvClient client = node.client().oneSidedBufferBytes(128).build())
        {
            assertArrayEquals(bytes(big), client.get(bytes("big")));
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_FALLBACKS));
            assertEquals(1, node.requests.get());
        }
    }

    @Test
    void shouldStopTrustingPoolWhenEpochChanges()
    {
        node.put("k", "v1");
        // The full protocol's header check; a cached location is tied to the pool's life by its version and session.
        try (KvClient client = node.client().locationCacheEntries(0).build())
        {
            assertArrayEquals(bytes("v1"), client.get(bytes("k")));
            node.epoch(LaidOutPoolNode.EPOCH + 1);
            assertArrayEquals(bytes("v1"), client.get(bytes("k")), "answered by the node instead");
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_FALLBACKS));
            assertEquals(1, node.requests.get());
        }
    }

    @Test
    void shouldAskTheNodeWhenItsPoolLayoutIsNotThisClients()
    {
        node.put("k", "v1");
        node.layoutVersion(PoolHeaderFlyweight.LAYOUT_VERSION - 1);
        try (KvClient client = node.client().build())
        {
            assertArrayEquals(bytes("v1"), client.get(bytes("k")), "answered by the node");
            assertArrayEquals(bytes("v1"), client.get(bytes("k")), "by RPC straight away now");
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_FALLBACKS), "the header was read once");
            assertEquals(2, node.requests.get());
            assertEquals(0, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS));
        }
    }

    @Test
    void shouldServeGetsByRpcInRpcMode()
    {
        node.put("alpha", "one");
        try (KvClient client = node.client().getMode(GetMode.RPC).build())
        {
            assertEquals(GetMode.RPC, client.diagnostics().getMode());
            assertArrayEquals(bytes("one"), client.get(bytes("alpha")));
            assertEquals(1, node.requests.get());
            assertEquals(0, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS));
        }
    }

    @Test
    void shouldResolveAutoToRpcOnEmulatedReads()
    {
        try (KvClient client = node.client().getMode(GetMode.AUTO).build())
        {
            assertEquals(GetMode.RPC, client.diagnostics().getMode(), "tcp only emulates reads: RPC is cheaper");
        }
    }

    @Test
    void shouldNotRegisterMemoryOnTheDataPath()
    {
        for (int i = 0; i < 50; i++)
        {
            node.put("key-" + i, "value-" + i);
        }
        try (KvClient client = node.client().build())
        {
            final long clientRegistrations = client.diagnostics().registrationCount();
            final long nodeRegistrations = node.registrationCount();
            for (int round = 0; round < 4; round++)
            {
                for (int i = 0; i < 50; i++)
                {
                    assertArrayEquals(bytes("value-" + i), client.get(bytes("key-" + i)));
                }
            }
            assertEquals(1, clientRegistrations, "the client registers its read memory once");
            assertEquals(clientRegistrations, client.diagnostics().registrationCount());
            assertEquals(nodeRegistrations, node.registrationCount());
            assertEquals(200, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS));
        }
    }

    static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
