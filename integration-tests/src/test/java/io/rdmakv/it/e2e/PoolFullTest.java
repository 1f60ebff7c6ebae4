package io.rdmakv.it.e2e;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvStats;
import io.rdmakv.it.support.NodeCounters;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.SelfCheckingValue;
import io.rdmakv.it.support.SelfCheckingValue.Verdict;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * More data than the pool holds: a node with a 4 MiB pool receives about 6 MiB. Every key stays readable
 * (the pool is a cache, RocksDB has everything; one-sided misses go to the server), the node reports evictions, and
 * the pool header's COMPLETE flag is cleared: before the overflow a one-sided miss is definitive, after it every
 * miss is looked up by RPC.
 */
@ExtendWith(ProcessJanitor.class)
class PoolFullTest
{
    private static final int KEYS = 1_600;
    private static final int VALUE_BYTES = 4_000;
    private static final int WINDOW = 32;

    @TempDir
    Path tmp;

    @Test
    @Timeout(180)
    void shouldServeEveryKeyAfterThePoolOverflowsAndClearComplete()
    {
        final ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("poolfull")
            .setting("pool.size", "4MiB").start();
        try (KvClient client = KvClient.builder().server(server.seed()).transport(TestTransport.name())
            .getMode(GetMode.ONE_SIDED)
            .requestTimeout(Duration.ofSeconds(10)).build())
        {
            // While everything fits, the pool is COMPLETE: a miss is answered one-sided, without asking the node.
            assertNull(client.get(key(-1)));
            final KvStats fitting = client.stats();
            assertEquals(1, fitting.client(ClientCounter.GET_MISSES), "definitive one-sided miss while COMPLETE");
            assertEquals(0, fitting.client(ClientCounter.GET_MISS_LOOKUPS));

            // Pipelined in windows: the point is the volume, not the round trips.
            final List<CompletableFuture<Void>> window = new ArrayList<>();
            for (int k = 0; k < KEYS; k++)
            {
                window.add(client.putAsync(key(k), SelfCheckingValue.encode(key(k), k, VALUE_BYTES)));
                if (window.size() == WINDOW || k == KEYS - 1)
                {
                    CompletableFuture.allOf(window.toArray(new CompletableFuture[0])).join();
                    window.clear();
                }
            }
            final Map<String, String> node = onlyNode(client.stats());
            assertTrue(NodeCounters.get(node, "pool.evictions") > 0,
                "about 6 MiB into a 4 MiB pool must evict: " + node);
            assertEquals(0, NodeCounters.get(node, "pool.complete"), "the node no longer holds every key in its pool");
            assertTrue(NodeCounters.get(node, "pool.keys") < KEYS, node.toString());

            // Newest first: the most recently written keys are the ones still in the pool (a scan in write order
            // would evict each next key by promoting the previous one, and hit nothing).
            for (int hi = KEYS - 1; hi >= 0; hi -= WINDOW)
            {
                final List<byte[]> keys = new ArrayList<>();
                for (int k = hi; k > hi - WINDOW && k >= 0; k--)
                {
                    keys.add(key(k));
                }
                final List<byte[]> values = client.multiGet(keys);
                for (int i = 0; i < keys.size(); i++)
                {
                    final int k = hi - i;
                    assertEquals(Verdict.OK, SelfCheckingValue.check(key(k), values.get(i)), "key " + k);
                    assertEquals(k, SelfCheckingValue.sequence(values.get(i)), "key " + k);
                }
            }
            final KvStats afterReads = client.stats();
            assertTrue(afterReads.client(ClientCounter.GET_ONE_SIDED_HITS) > 0,
                "keys still in the pool read one-sided: " + afterReads.format());
            assertTrue(afterReads.client(ClientCounter.GET_MISS_LOOKUPS) > 0,
                "evicted keys are misses in the pool and must be looked up by RPC: " + afterReads.format());

            // COMPLETE is cleared: the same kind of miss as at the start now goes to the node.
            final long lookupsBefore = afterReads.client(ClientCounter.GET_MISS_LOOKUPS);
            final long missesBefore = afterReads.client(ClientCounter.GET_MISSES);
            assertNull(client.get(key(-2)));
            final KvStats last = client.stats();
            assertEquals(lookupsBefore + 1, last.client(ClientCounter.GET_MISS_LOOKUPS), last.format());
            assertEquals(missesBefore, last.client(ClientCounter.GET_MISSES), "no definitive misses without COMPLETE");
        }
    }

    /**
     * Values over ~30 size classes rewritten under the 100 ms grace period into a pool holding them a thousand times
     * over: nothing may be evicted. (With one 2 MiB slab per size class this evicted 2,066 times and left 6 keys.)
     */
    @Test
    @Timeout(120)
    void shouldNotEvictFromAMostlyEmptyPool()
    {
        final ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("mostly-empty")
            .setting("pool.size", "32MiB").start();
        try (KvClient client = KvClient.builder().server(server.seed()).transport(TestTransport.name())
            .requestTimeout(Duration.ofSeconds(10)).build())
        {
            final java.util.Random random = new java.util.Random(7);
            for (int round = 0; round < 150; round++)
            {
                for (int k = 0; k < 16; k++)
                {
                    client.put(key(k), SelfCheckingValue.encode(key(k), round, 40 + random.nextInt(2960)));
                }
            }
            final Map<String, String> node = onlyNode(client.stats());
            assertEquals(0, NodeCounters.get(node, "pool.evictions"), "16 small keys in 32 MiB: " + node);
            assertEquals(16, NodeCounters.get(node, "pool.keys"), node.toString());
            assertEquals(1, NodeCounters.get(node, "pool.complete"), node.toString());
        }
    }

    private static Map<String, String> onlyNode(final KvStats stats)
    {
        assertEquals(1, stats.nodes().size(), "one node: " + stats.nodes());
        return stats.nodes().values().iterator().next();
    }

    private static byte[] key(final int k)
    {
        return ("poolfull/" + k).getBytes(StandardCharsets.UTF_8);
    }
}
