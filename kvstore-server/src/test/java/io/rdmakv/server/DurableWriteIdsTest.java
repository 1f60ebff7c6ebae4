package io.rdmakv.server;

import io.rdmakv.protocol.wire.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node restarted on its data (a real RocksDB in a temporary directory) answers the retry of a write it applied
 * before the restart exactly as it answered the first attempt, and does not apply it again: the write-id records are
 * written with the data, in the same batch ({@code WriteRecords}).
 */
class DurableWriteIdsTest
{
    private static final long WRITER = 0xC0FFEEL;

    @TempDir
    Path dir;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void shouldAnswerARetryAfterARestartAsBeforeItAndNotApplyItAgain() throws Exception
    {
        try (KvServer node = KvServer.start(KvServerTest.testConfig(dir, Map.of()));
             RawClient client = RawClient.attached(node);
             RawClient other = RawClient.attached(node))
        {
            assertEquals(Status.OK, client.put(b("k"), b("first"), WRITER, 1, 1).status());
            assertEquals(Status.OK, other.put(b("k"), b("later")).status(), "another client's acknowledged write");
            assertEquals(Status.OK, other.put(b("gone"), b("x")).status());
            assertEquals(Status.OK, client.delete(b("gone"), WRITER, 2, 1).status(), "it existed");
            assertEquals(Status.NOT_FOUND, client.delete(b("never"), WRITER, 3, 1).status());
            assertEquals(Status.OK, other.put(b("never"), b("since")).status());
            // Before the restart: retries are answered from the records.
            assertEquals(Status.OK, client.delete(b("gone"), WRITER, 2, 1).status());
            assertTrue(client.stats().text().contains("writes.retriesAnswered=1"), client.stats().text());
        }

        try (KvServer node = KvServer.start(KvServerTest.testConfig(dir, Map.of()));
             RawClient client = RawClient.attached(node))
        {
            // The first attempts' answers were lost; the client retries each after the restart.
            assertEquals(Status.OK, client.put(b("k"), b("first"), WRITER, 1, 1).status());
            assertEquals(Status.OK, client.delete(b("gone"), WRITER, 2, 1).status());
            assertEquals(Status.NOT_FOUND, client.delete(b("never"), WRITER, 3, 1).status(),
                "answered as the first attempt was, not applied over the later PUT");
            assertTrue(client.stats().text().contains("writes.retriesAnswered=3"), client.stats().text());
            assertArrayEquals(b("later"), client.get(b("k")).value(), "the later acknowledged write stands");
            assertArrayEquals(b("since"), client.get(b("never")).value());
            assertNull(node.store().get(b("gone")));

            // The writer's mark moves past them: the next write is new, its number applied.
            assertEquals(Status.OK, client.put(b("k"), b("fourth"), WRITER, 4, 4).status());
            assertArrayEquals(b("fourth"), client.get(b("k")).value());
        }

        try (KvServer node = KvServer.start(KvServerTest.testConfig(dir, Map.of()));
             RawClient client = RawClient.attached(node))
        {
            // Restarted again: write 4 is answered; writes 1-3 lie below the mark write 4 carried (not restored).
            assertEquals(Status.OK, client.put(b("k"), b("fourth"), WRITER, 4, 4).status());
            assertTrue(client.stats().text().contains("writes.retriesAnswered=1"), client.stats().text());
            assertEquals(Status.MALFORMED, client.put(b("k"), b("first"), WRITER, 1, 1).status(),
                "below the writer's mark: answered long ago, refused, not applied");
            assertArrayEquals(b("fourth"), client.get(b("k")).value());
        }
    }
}
