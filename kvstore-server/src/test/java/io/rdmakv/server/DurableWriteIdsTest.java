package io.rdmakv.server;

import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.store.Durability;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node restarted on its data (a real RocksDB in a temporary directory) answers the retry of a write it applied
 * before the restart exactly as it answered the first attempt, and does not apply it again: the write-id records are
 * written with the data, in the same batch ({@code WriteRecords}), under either durability (FSYNC: in the group
 * commit's batch, {@code KeptRecords}).
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

    @ParameterizedTest
    @EnumSource(Durability.class)
    @Timeout(60)
    void shouldAnswerARetryAfterARestartAsBeforeItAndNotApplyItAgain(final Durability durability) throws Exception
    {
        final Map<String, String> settings = Map.of("durability", durability.name());
        final RawClient.Reply increment;
        try (KvServer node = KvServer.start(KvServerTest.testConfig(dir, settings));
             RawClient client = RawClient.attached(node);
             RawClient other = RawClient.attached(node))
        {
            assertEquals(Status.OK, client.put(b("k"), b("first"), WRITER, 1, 1).status());
            assertEquals(Status.OK, other.put(b("k"), b("later")).status(), "another client's acknowledged write");
            assertEquals(Status.OK, other.put(b("gone"), b("x")).status());
            assertEquals(Status.OK, client.delete(b("gone"), WRITER, 2, 1).status(), "it existed");
            assertEquals(Status.NOT_FOUND, client.delete(b("never"), WRITER, 3, 1).status());
            assertEquals(Status.OK, other.put(b("never"), b("since")).status());
            increment = client.recordWrite(RecordWriteRequestFlyweight.OP_INCREMENT, 0, 5, b("n"), new byte[0],
                WRITER, 4, 1);
            assertEquals(Status.OK, increment.status());
            assertEquals("5", counter(increment));
            assertEquals(Status.OK, other.recordWrite(RecordWriteRequestFlyweight.OP_INCREMENT, 0, 10, b("n"),
                new byte[0]).status(), "another client's increment");
            // Before the restart: retries are answered from the records.
            assertEquals(Status.OK, client.delete(b("gone"), WRITER, 2, 1).status());
            assertTrue(client.stats().text().contains("writes.retriesAnswered=1"), client.stats().text());
        }

        try (KvServer node = KvServer.start(KvServerTest.testConfig(dir, settings));
             RawClient client = RawClient.attached(node))
        {
            // The first attempts' answers were lost; the client retries each after the restart.
            assertEquals(Status.OK, client.put(b("k"), b("first"), WRITER, 1, 1).status());
            assertEquals(Status.OK, client.delete(b("gone"), WRITER, 2, 1).status());
            assertEquals(Status.NOT_FOUND, client.delete(b("never"), WRITER, 3, 1).status(),
                "answered as the first attempt was, not applied over the later PUT");
            final RawClient.Reply retried = client.recordWrite(RecordWriteRequestFlyweight.OP_INCREMENT, 0, 5, b("n"),
                new byte[0], WRITER, 4, 1);
            assertEquals(Status.OK, retried.status());
            assertArrayEquals(written(increment), written(retried), "the data version and value it made, not applied");
            assertEquals("5", counter(retried));
            assertTrue(client.stats().text().contains("writes.retriesAnswered=4"), client.stats().text());
            assertArrayEquals(b("15"), client.get(b("n")).value(), "incremented once by each client");
            assertArrayEquals(b("later"), client.get(b("k")).value(), "the later acknowledged write stands");
            assertArrayEquals(b("since"), client.get(b("never")).value());
            assertNull(node.store().get(b("gone")));

            // The writer's mark moves past them: the next write is new, its number applied.
            assertEquals(Status.OK, client.put(b("k"), b("fifth"), WRITER, 5, 5).status());
            assertArrayEquals(b("fifth"), client.get(b("k")).value());
        }

        try (KvServer node = KvServer.start(KvServerTest.testConfig(dir, settings));
             RawClient client = RawClient.attached(node))
        {
            // Restarted again: write 5 is answered; writes 1-4 lie below the mark write 5 carried (not restored).
            assertEquals(Status.OK, client.put(b("k"), b("fifth"), WRITER, 5, 5).status());
            assertTrue(client.stats().text().contains("writes.retriesAnswered=1"), client.stats().text());
            assertEquals(Status.MALFORMED, client.put(b("k"), b("first"), WRITER, 1, 1).status(),
                "below the writer's mark: answered long ago, refused, not applied");
            assertArrayEquals(b("fifth"), client.get(b("k")).value());
        }
    }

    /** What an increment's answer carries after the pool location: the data version written and the new value. */
    private static byte[] written(final RawClient.Reply reply)
    {
        return Arrays.copyOfRange(reply.value(), ResponseFlyweight.LOCATION_LENGTH, reply.value().length);
    }

    /** The counter's new value an increment's answer carries (after the location and the written version). */
    private static String counter(final RawClient.Reply reply)
    {
        return new String(reply.value(), ResponseFlyweight.WRITTEN_LENGTH,
            reply.value().length - ResponseFlyweight.WRITTEN_LENGTH, StandardCharsets.US_ASCII);
    }
}
