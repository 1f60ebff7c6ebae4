package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.counters.ServerCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Versions, conditional writes, counters and expiry from the Java client, sync and async, against a real node
 * in-process (tcp; GETs one-sided).
 */
@Timeout(60)
class RecordOperationsTest
{
    @TempDir
    Path dir;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldCompareAndSetOnDataVersionsReadOneSided() throws Exception
    {
        try (KvServer server = InProcessNode.start(dir, Map.of()); KvClient client = InProcessNode.client(server).build())
        {
            final WriteResult first = client.putIfAbsent(b("k"), b("one"));
            assertTrue(first.applied());
            final WriteResult again = client.putIfAbsentAsync(b("k"), b("two")).get();
            assertFalse(again.applied(), "a typed refusal, not an exception");
            assertEquals(first.version(), again.version());

            final Versioned read = client.getWithVersion(b("k"));
            assertArrayEquals(b("one"), read.value());
            assertEquals(first.version(), read.version(), "the version a one-sided GET reads in the extent");
            assertEquals(0, server.counters().get(ServerCounter.GETS_RPC), "one-sided");

            final WriteResult replaced = client.replace(b("k"), read.version(), b("two"));
            assertTrue(replaced.applied());
            assertTrue(replaced.version() > read.version());
            assertFalse(client.replace(b("k"), read.version(), b("lost update")).applied());
            assertEquals(replaced.version(), client.getWithVersionAsync(b("k")).get().version());
            assertFalse(client.delete(b("k"), read.version()).applied());
            assertTrue(client.deleteAsync(b("k"), replaced.version()).get().applied());
            assertNull(client.getWithVersion(b("k")));
        }
    }

    @Test
    void shouldCountAndExpire() throws Exception
    {
        try (KvServer server = InProcessNode.start(dir, Map.of()); KvClient client = InProcessNode.client(server).build())
        {
            assertEquals(1, client.increment(b("n"), 1));
            assertEquals(11, client.incrementAsync(b("n"), 10).get());
            assertEquals(-1, client.increment(b("n"), -12));
            assertArrayEquals(b("-1"), client.get(b("n")));
            client.put(b("s"), b("text"));
            final KvServerException refused = assertThrows(KvServerException.class, () -> client.increment(b("s"), 1));
            assertEquals(KvError.NOT_AN_INTEGER, refused.error());

            assertEquals(-2, client.ttlMillis(b("absent")));
            assertEquals(-1, client.ttlMillis(b("n")));
            assertTrue(client.expire(b("n"), Duration.ofHours(1)));
            final long left = client.ttlMillis(b("n"));
            assertTrue(left > 3_500_000 && left <= 3_600_000, "about an hour: " + left);
            assertEquals(0, client.increment(b("n"), 1), "the counter keeps counting");
            assertTrue(client.ttlMillisAsync(b("n")).get() > 0, "and keeps its expiry");
            // A value surely live on the node's clock (an hour to go) is read one-sided (ExpiryCheck).
            final long rpcBefore = server.counters().get(ServerCounter.GETS_RPC);
            final long liveBefore = client.stats().client(ClientCounter.EXPIRY_ONE_SIDED_LIVE);
            assertArrayEquals(b("0"), client.get(b("n")));
            assertEquals(rpcBefore, server.counters().get(ServerCounter.GETS_RPC));
            assertEquals(liveBefore + 1, client.stats().client(ClientCounter.EXPIRY_ONE_SIDED_LIVE));
            assertTrue(client.persist(b("n")));
            assertEquals(-1, client.ttlMillis(b("n")));
            assertFalse(client.expire(b("absent"), Duration.ofSeconds(1)));

            client.put(b("t"), b("soon"), java.time.Instant.ofEpochMilli(1)); // an instant long past: expired
            assertNull(client.get(b("t")), "an expired key is never returned");
            assertNull(client.getWithVersion(b("t")));
            assertEquals(-2, client.ttlMillis(b("t")));
            assertTrue(client.putIfAbsent(b("t"), b("fresh")).applied(), "expired is absent to a condition");
        }
    }

    /**
     * FSYNC durability: a conditional write decides after every write queued before it for the group commit is in
     * RocksDB. A PUT pipelined just before a putIfAbsent of its key (the PUT still waiting for its sync when the
     * condition is decided) makes the putIfAbsent refused, and 200 increments in flight at once answer 200 distinct
     * values ending at 200, as under DEFAULT.
     */
    @Test
    void shouldDecideConditionalWritesAfterTheWritesQueuedForGroupCommit() throws Exception
    {
        try (KvServer server = InProcessNode.start(dir, Map.of("durability", "FSYNC"));
             KvClient client = InProcessNode.client(server).build())
        {
            for (int i = 0; i < 20; i++)
            {
                final byte[] key = b("queued-" + i);
                final java.util.concurrent.CompletableFuture<Void> put = client.putAsync(key, b("first"));
                final WriteResult second = client.putIfAbsentAsync(key, b("second")).get();
                put.get();
                assertFalse(second.applied(), "the queued PUT is read by the condition: round " + i);
                assertArrayEquals(b("first"), client.get(key));
            }
            final java.util.List<java.util.concurrent.CompletableFuture<Long>> inFlight = new java.util.ArrayList<>();
            for (int i = 0; i < 200; i++)
            {
                inFlight.add(client.incrementAsync(b("counter"), 1));
            }
            final java.util.TreeSet<Long> answers = new java.util.TreeSet<>();
            for (final java.util.concurrent.CompletableFuture<Long> f : inFlight)
            {
                answers.add(f.get());
            }
            assertEquals(200, answers.size());
            assertEquals(200L, answers.last());
            assertArrayEquals(b("200"), client.get(b("counter")));
        }
    }
}
