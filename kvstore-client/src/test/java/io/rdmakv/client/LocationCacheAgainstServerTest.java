package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.counters.ServerCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The location cache against a real node (its PoolIndex retires superseded extents, its PUT answers carry the
 * location): one read per GET of a remembered key, and never a stale value whatever the node did to the key since.
 */
@Timeout(60)
class LocationCacheAgainstServerTest
{
    @TempDir
    Path dir;

    @Test
    void shouldLearnItsOwnWritesAndReadEachBackInOneRead()
    {
        try (KvServer server = InProcessNode.start(dir, Map.of());
             KvClient client = InProcessNode.client(server).build())
        {
            for (int i = 0; i < 100; i++)
            {
                client.put(bytes("key-" + i), bytes("value-" + i));
            }
            for (int round = 0; round < 3; round++)
            {
                for (int i = 0; i < 100; i++)
                {
                    assertArrayEquals(bytes("value-" + i), client.get(bytes("key-" + i)));
                }
            }
            assertEquals(300, counter(client, ClientCounter.GET_CACHE_HITS), "the PUT answers said where");
            assertEquals(0, counter(client, ClientCounter.GET_CACHE_MISSES));
            assertEquals(0, counter(client, ClientCounter.GET_CACHE_INVALIDATIONS));
            assertEquals(0, server.counters().get(ServerCounter.GETS_RPC));
        }
    }

    /**
     * A conditional write, a PUT with a time-to-live, an expiry change and a counter are answered as the PUT they made:
     * the client learns where each value went as for a plain PUT (before, they only dropped the key's location, and
     * the next GET took the full protocol).
     */
    @Test
    void shouldLearnWhereItsRecordWritesPutTheirValues()
    {
        try (KvServer server = InProcessNode.start(dir, Map.of());
             KvClient client = InProcessNode.client(server).build())
        {
            client.putIfAbsent(bytes("absent"), bytes("first"));
            final long version = client.getWithVersion(bytes("absent")).version();
            client.replace(bytes("absent"), version, bytes("replaced"));
            client.put(bytes("ttl"), bytes("lives an hour"), Duration.ofHours(1));
            client.put(bytes("expiring"), bytes("e"));
            client.expire(bytes("expiring"), Duration.ofHours(1));
            final long hitsBefore = counter(client, ClientCounter.GET_CACHE_HITS);
            assertArrayEquals(bytes("replaced"), client.get(bytes("absent")));
            assertArrayEquals(bytes("lives an hour"), client.get(bytes("ttl")));
            assertArrayEquals(bytes("e"), client.get(bytes("expiring")));
            assertEquals(hitsBefore + 3, counter(client, ClientCounter.GET_CACHE_HITS), "one read each");
            assertEquals(0, counter(client, ClientCounter.GET_CACHE_MISSES));
            assertEquals(0, counter(client, ClientCounter.GET_CACHE_INVALIDATIONS));
        }
    }

    @Test
    void shouldReturnAnotherClientsUpdateAndDeleteNeverTheCachedValue()
    {
        try (KvServer server = InProcessNode.start(dir, Map.of());
             KvClient reader = InProcessNode.client(server).build();
             KvClient writer = InProcessNode.client(server).build())
        {
            writer.put(bytes("k"), bytes("first"));
            assertArrayEquals(bytes("first"), reader.get(bytes("k")), "learnt by the full protocol");
            assertArrayEquals(bytes("first"), reader.get(bytes("k")), "then one read");
            assertEquals(1, counter(reader, ClientCounter.GET_CACHE_HITS));

            writer.put(bytes("k"), bytes("second, of another size class than the first one, to move it far"));
            assertArrayEquals(bytes("second, of another size class than the first one, to move it far"),
                reader.get(bytes("k")), "the acknowledged update, never the cached value");
            assertEquals(1, counter(reader, ClientCounter.GET_CACHE_INVALIDATIONS));
            assertArrayEquals(bytes("second, of another size class than the first one, to move it far"),
                reader.get(bytes("k")));
            assertEquals(2, counter(reader, ClientCounter.GET_CACHE_HITS), "re-learnt at the new place");

            assertTrue(writer.delete(bytes("k")));
            assertNull(reader.get(bytes("k")), "a delete: NOT_FOUND, not the cached value");
            assertEquals(2, counter(reader, ClientCounter.GET_CACHE_INVALIDATIONS));
            assertEquals(0, server.counters().get(ServerCounter.GETS_RPC), "the pool is COMPLETE: all one-sided");
        }
    }

    @Test
    void shouldServeEvictedKeysFromTheStoreNeverFromTheCache()
    {
        // A 1 MiB pool takes about 900 values of 900 B: writing 2,000 evicts more than half of them.
        try (KvServer server = InProcessNode.start(dir, Map.of("pool.size", "1MiB"));
             KvClient client = InProcessNode.client(server).build())
        {
            final int keys = 2000;
            for (int i = 0; i < keys; i++)
            {
                client.put(bytes("key-" + i), valueOf(i, 900));
            }
            assertTrue(server.counters().gauge("pool.evictions") > 0, "the pool must have evicted");
            for (int i = 0; i < keys; i++)
            {
                assertArrayEquals(valueOf(i, 900), client.get(bytes("key-" + i)), "key-" + i);
            }
            assertTrue(counter(client, ClientCounter.GET_CACHE_INVALIDATIONS) > 0,
                "locations of evicted keys were remembered from the PUT answers, then found RETIRED or reused");
            assertTrue(counter(client, ClientCounter.GET_CACHE_HITS) > 0, "keys still in the pool: one read");
            assertTrue(server.counters().get(ServerCounter.GETS_RPC) > 0, "evicted keys came from RocksDB");
        }
    }

    @Test
    void shouldStayCorrectWhenRetiredExtentsAreReusedAtOnce()
    {
        try (KvServer server = InProcessNode.start(dir, Map.of("pool.reclaimGraceMs", "0"));
             KvClient reader = InProcessNode.client(server).build();
             KvClient writer = InProcessNode.client(server).build())
        {
            for (int round = 0; round < 200; round++)
            {
                for (int k = 0; k < 4; k++)
                {
                    writer.put(bytes("key-" + k), valueOf(round * 4 + k, 100));
                }
                for (int k = 0; k < 4; k++)
                {
                    // Same size class every time: each update frees an extent the next write takes again at once.
                    assertArrayEquals(valueOf(round * 4 + k, 100), reader.get(bytes("key-" + k)), "key-" + k);
                }
            }
            assertTrue(counter(reader, ClientCounter.GET_CACHE_INVALIDATIONS) >= 4 * 199,
                "every round superseded every remembered location: " + reader.stats().format());
        }
    }

    @Test
    void shouldStartWithAnEmptyCacheAfterTheNodeRestarts() throws Exception
    {
        final Map<String, String> fixed = InProcessNode.fixedControlPort();
        final KvClient client;
        try (KvServer server = InProcessNode.start(dir, fixed))
        {
            client = InProcessNode.client(server).requestTimeout(Duration.ofSeconds(3)).build();
            client.put(bytes("durable"), bytes("yes"));
            assertArrayEquals(bytes("yes"), client.get(bytes("durable")));
            assertEquals(1, counter(client, ClientCounter.GET_CACHE_HITS));
        }
        try (client)
        {
            assertThrows(KvException.class, () -> client.get(bytes("durable")), "the node is down");
            try (KvServer restarted = InProcessNode.start(dir, fixed))
            {
                final long misses = counter(client, ClientCounter.GET_CACHE_MISSES);
                assertArrayEquals(bytes("yes"), client.get(bytes("durable")));
                assertEquals(misses + 1, counter(client, ClientCounter.GET_CACHE_MISSES),
                    "a new session to the restarted node starts with an empty cache");
                assertEquals(0, counter(client, ClientCounter.GET_CACHE_INVALIDATIONS), "nothing stale was read");
                assertArrayEquals(bytes("yes"), client.get(bytes("durable")));
                assertEquals(2, counter(client, ClientCounter.GET_CACHE_HITS), "learnt again in the new pool");
                assertEquals(0, restarted.counters().get(ServerCounter.GETS_RPC), "warmed up, read one-sided");
            }
        }
    }

    private static byte[] valueOf(final int n, final int length)
    {
        final byte[] value = new byte[length];
        Arrays.fill(value, (byte)(n * 31 + 7));
        value[0] = (byte)n;
        value[1] = (byte)(n >> 8);
        return value;
    }

    private static long counter(final KvClient client, final ClientCounter counter)
    {
        return client.diagnostics().counters().get(counter);
    }
}
