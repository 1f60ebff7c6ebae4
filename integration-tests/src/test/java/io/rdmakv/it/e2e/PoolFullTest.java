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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * More data than the pool holds: a node with a 4 MiB pool receives about twice that. Every key stays readable
 * (the pool is a cache, RocksDB has everything; one-sided misses go to the server), the node reports evictions, and
 * the pool header's COMPLETE flag is cleared: before the overflow a one-sided miss is definitive, after it every
 * miss is looked up by RPC.
 */
@ExtendWith(ProcessJanitor.class)
class PoolFullTest
{
    private static final int KEYS = 2_500;
    private static final int VALUE_BYTES = 3_000;

    @TempDir
    Path tmp;

    @Test
    @Timeout(180)
    void shouldServeEveryKeyAfterThePoolOverflowsAndClearComplete()
    {
        final ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("poolfull")
            .setting("pool.size", "4MiB").start();
        try (KvClient client = KvClient.builder().server(server.seed()).transport("tcp").getMode(GetMode.ONE_SIDED)
            .requestTimeout(Duration.ofSeconds(10)).build())
        {
            // While everything fits, the pool is COMPLETE: a miss is answered one-sided, without asking the node.
            assertNull(client.get(key(-1)));
            final KvStats fitting = client.stats();
            assertEquals(1, fitting.client(ClientCounter.GET_MISSES), "definitive one-sided miss while COMPLETE");
            assertEquals(0, fitting.client(ClientCounter.GET_MISS_LOOKUPS));

            for (int k = 0; k < KEYS; k++)
            {
                client.put(key(k), SelfCheckingValue.encode(key(k), k, VALUE_BYTES));
            }
            final Map<String, String> node = onlyNode(client.stats());
            assertTrue(NodeCounters.get(node, "pool.evictions") > 0, "about 7 MiB into a 4 MiB pool must evict: " + node);

            for (int k = 0; k < KEYS; k++)
            {
                final byte[] value = client.get(key(k));
                assertEquals(Verdict.OK, SelfCheckingValue.check(key(k), value), "key " + k);
                assertEquals(k, SelfCheckingValue.sequence(value), "key " + k);
            }
            final KvStats afterReads = client.stats();
            assertTrue(afterReads.client(ClientCounter.GET_ONE_SIDED_HITS) > 0, "keys still in the pool read one-sided");
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
