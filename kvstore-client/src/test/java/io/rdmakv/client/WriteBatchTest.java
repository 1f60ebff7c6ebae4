package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.counters.ServerCounter;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Atomic batches from the Java client, sync and async, against a real node in-process (tcp; GETs one-sided), under
 * each durability (FSYNC: each batch is one unit of a group commit).
 */
@Timeout(60)
class WriteBatchTest
{
    @TempDir
    Path dir;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"DEFAULT", "FSYNC"})
    void shouldApplyABatchOfOneHashTagAndRefuseTwoSlotsBeforeSending(final String durability) throws Exception
    {
        try (KvServer server = InProcessNode.start(dir, Map.of("durability", durability));
             KvClient client = InProcessNode.client(server).build())
        {
            client.put(b("{u1}:stale"), b("x"));
            client.get(b("{u1}:stale")); // remembered in the location cache: the batch's DELETE must still be seen
            client.writeBatch().put(b("{u1}:name"), b("alice")).put(b("{u1}:mail"), b("a@x"))
                .delete(b("{u1}:stale")).execute();
            assertArrayEquals(b("alice"), client.get(b("{u1}:name")));
            assertArrayEquals(b("a@x"), client.get(b("{u1}:mail")));
            assertNull(client.get(b("{u1}:stale")));
            assertEquals(1, server.counters().get(ServerCounter.BATCH_WRITES));

            final Map<byte[], byte[]> entries = new LinkedHashMap<>();
            entries.put(b("{u2}:a"), b("1"));
            entries.put(b("{u2}:b"), b("2"));
            client.putAllAsync(entries).get();
            assertArrayEquals(b("2"), client.get(b("{u2}:b")));
            client.putAll(Map.of(b("{u2}:a"), b("3")));
            assertArrayEquals(b("3"), client.get(b("{u2}:a")), "a batch of one");

            final KvServerException cross = assertThrows(KvServerException.class,
                () -> client.writeBatch().put(b("{u1}:name"), b("bob")).put(b("{u2}:a"), b("bob")).execute());
            assertEquals(KvError.CROSSSLOT, cross.error());
            assertTrue(cross.getMessage().contains("hash tag"), cross.getMessage());
            final ExecutionException crossAsync = assertThrows(ExecutionException.class,
                () -> client.writeBatch().put(b("{u1}:name"), b("bob")).delete(b("other")).executeAsync().get());
            assertEquals(KvError.CROSSSLOT, assertInstanceOf(KvServerException.class, crossAsync.getCause()).error());
            assertArrayEquals(b("alice"), client.get(b("{u1}:name")), "nothing written");
            assertEquals(3, server.counters().get(ServerCounter.BATCH_WRITES), "the refused ones never left");
            assertEquals(0, server.counters().get(ServerCounter.BATCH_CROSSSLOT));

            assertThrows(IllegalArgumentException.class, () -> client.writeBatch().execute(), "empty");
            final int maxValue = server.config().maxValueBytes();
            // Each value within the node's limit, the two not: a batch carries at most one largest key and value.
            final WriteBatch big = client.writeBatch().put(b("{u3}:a"), new byte[maxValue])
                .put(b("{u3}:b"), new byte[maxValue]);
            assertTrue(assertThrows(IllegalArgumentException.class, big::execute).getMessage().contains("limit"));
            assertNull(client.get(b("{u3}:a")));
        }
    }
}
