package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Conditional writes, counters and expiry changes on one node, driven straight into the request handler on the test's
 * thread (no transport): the order of answers is the order of events, so the same-key interleaving with a PUT still in
 * its batch is exact, not timed.
 */
class RecordWritesTest
{
    private static final long WRITER = 0x5eed_0042L;

    @TempDir
    Path dir;

    private final List<Answer> answers = new ArrayList<>();
    private final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(8192));
    private long correlation;

    /** What one RESPONSE said. */
    private record Answer(long id, Status status, long version, long writtenVersion, byte[] value)
    {
        String text()
        {
            return new String(value, StandardCharsets.US_ASCII);
        }
    }

    private final class Recording extends AnsweringEndpoint
    {
        @Override
        protected void onResponse(final ResponseFlyweight response)
        {
            answers.add(new Answer(response.correlationId(), response.status(), response.version(),
                response.writtenVersion(), response.value()));
        }
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Recording attach(final HandlerOnOneThread node)
    {
        final Recording endpoint = new Recording();
        node.handler.onConnected(endpoint);
        final UnsafeBuffer attach = new UnsafeBuffer(new byte[AttachRequestFlyweight.ENCODED_LENGTH]);
        new AttachRequestFlyweight().wrap(attach, 0, attach.capacity()).header(MessageType.ATTACH_REQUEST, 0)
            .ticket(node.tickets.issue());
        node.handler.onMessage(endpoint, attach, 0, attach.capacity());
        answers.clear();
        return endpoint;
    }

    /** Send a record write; returns its correlation id. {@code sequence} > 0 adds a write id. */
    private long record(final HandlerOnOneThread node, final Recording endpoint, final int op,
        final long expected, final long argument, final String key, final String value, final long sequence)
    {
        final long id = ++correlation;
        final RecordWriteRequestFlyweight w = new RecordWriteRequestFlyweight();
        w.wrap(message, 0, message.capacity()).header(MessageType.RECORD_WRITE_REQUEST, id);
        w.write(op, expected, argument, b(key), value == null ? new byte[0] : b(value));
        if (sequence > 0)
        {
            w.appendWriteId(WRITER, sequence, 1);
        }
        node.handler.onMessage(endpoint, message, 0, w.encodedLength());
        return id;
    }

    private long put(final HandlerOnOneThread node, final Recording endpoint, final String key, final String value)
    {
        final long id = ++correlation;
        final PutRequestFlyweight put = new PutRequestFlyweight();
        put.wrap(message, 0, message.capacity()).header(MessageType.PUT_REQUEST, id);
        put.keyAndValue(b(key), b(value));
        node.handler.onMessage(endpoint, message, 0, put.encodedLength());
        return id;
    }

    private long get(final HandlerOnOneThread node, final Recording endpoint, final String key)
    {
        final long id = ++correlation;
        final KeyRequestFlyweight get = new KeyRequestFlyweight();
        get.wrap(message, 0, message.capacity()).header(MessageType.GET_REQUEST, id);
        get.key(new UnsafeBuffer(b(key)), 0, b(key).length);
        node.handler.onMessage(endpoint, message, 0, get.encodedLength());
        return id;
    }

    private Answer last()
    {
        return answers.get(answers.size() - 1);
    }

    @Test
    void shouldPutIfAbsentReplaceAndDeleteOnlyAtTheExpectedVersion()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final Recording c = attach(node);
            record(node, c, RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT, 0, 0, "k", "one", 0);
            get(node, c, "k"); // flushes the batch the conditional's PUT joined, then reads
            final long v1 = answers.get(0).writtenVersion();
            assertEquals(Status.OK, answers.get(0).status());
            assertNotEquals(0, v1);
            assertEquals("one", last().text());
            assertEquals(v1, last().version(), "a GET answers the value's data version");

            record(node, c, RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT, 0, 0, "k", "two", 0);
            assertEquals(Status.CONDITION_FAILED, last().status());
            assertEquals(v1, last().version(), "the refusal names the present version");

            record(node, c, RecordWriteRequestFlyweight.OP_PUT_IF_VERSION, v1, 0, "k", "two", 0);
            get(node, c, "k");
            final long v2 = answers.get(answers.size() - 2).writtenVersion();
            assertTrue(v2 > v1, "a new version for the new value");
            assertEquals("two", last().text());

            record(node, c, RecordWriteRequestFlyweight.OP_PUT_IF_VERSION, v1, 0, "k", "stale", 0);
            assertEquals(Status.CONDITION_FAILED, last().status());
            assertEquals(v2, last().version());
            record(node, c, RecordWriteRequestFlyweight.OP_DELETE_IF_VERSION, v1, 0, "k", null, 0);
            assertEquals(Status.CONDITION_FAILED, last().status());
            record(node, c, RecordWriteRequestFlyweight.OP_DELETE_IF_VERSION, v2, 0, "k", null, 0);
            assertEquals(Status.OK, last().status());
            get(node, c, "k");
            assertEquals(Status.NOT_FOUND, last().status());
            record(node, c, RecordWriteRequestFlyweight.OP_PUT_IF_VERSION, v2, 0, "k", "gone", 0);
            assertEquals(Status.CONDITION_FAILED, last().status());
            assertEquals(0, last().version(), "absent: version 0");
            assertEquals(4, node.counters.get(ServerCounter.CONDITIONS_FAILED));
        }
    }

    /**
     * A PUT of the key still in its batch (not written, not answered) when a conditional write of the key arrives: the
     * conditional is decided after it, against the PUT's version, and the answers leave in that order.
     */
    @Test
    void shouldDecideAfterAPutOfTheSameKeyStillInItsBatch()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final Recording c = attach(node);
            final Recording other = attach(node);
            record(node, c, RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT, 0, 0, "k", "first", 0);
            get(node, c, "k");
            final long v1 = answers.get(0).writtenVersion();
            answers.clear();

            final long putId = put(node, other, "k", "overwritten");
            assertTrue(answers.isEmpty(), "the PUT waits in its batch, unanswered");
            final long replaceId = record(node, c, RecordWriteRequestFlyweight.OP_PUT_IF_VERSION, v1, 0, "k",
                "lost update", 0);
            assertEquals(2, answers.size());
            assertEquals(putId, answers.get(0).id(), "the PUT first");
            assertEquals(Status.OK, answers.get(0).status());
            final long putVersion = answers.get(0).writtenVersion();
            assertTrue(putVersion > v1);
            assertEquals(replaceId, answers.get(1).id());
            assertEquals(Status.CONDITION_FAILED, answers.get(1).status(), "no lost update");
            assertEquals(putVersion, answers.get(1).version(), "decided against the PUT's version");
            get(node, c, "k");
            assertEquals("overwritten", last().text());
        }
    }

    /**
     * A retried increment after a restart: answered from the record kept with the data, with the data version and the
     * value its first attempt made (before, a restored record knew only its status, and the retry got OK without
     * the counter's value).
     */
    @Test
    void shouldAnswerARetriedIncrementAfterARestartWithTheValueAndVersionItMade()
    {
        final long written;
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final Recording c = attach(node);
            record(node, c, RecordWriteRequestFlyweight.OP_INCREMENT, 0, 5, "n", null, 1);
            get(node, c, "n"); // the PUT batch is written before a GET of its key on its connection
            assertEquals(Status.OK, answers.get(0).status());
            written = answers.get(0).writtenVersion();
            assertNotEquals(0, written);
        }
        answers.clear();
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final Recording c = attach(node);
            record(node, c, RecordWriteRequestFlyweight.OP_INCREMENT, 0, 5, "n", null, 1);
            get(node, c, "n");
            final Answer retry = answers.get(0);
            assertEquals(Status.OK, retry.status());
            assertEquals(1, node.counters.get(ServerCounter.RETRIES_ANSWERED), "answered, not applied");
            assertEquals(written, retry.writtenVersion(), "the data version the first attempt wrote");
            assertEquals("5", new String(retry.value(), ResponseFlyweight.WRITTEN_LENGTH,
                retry.value().length - ResponseFlyweight.WRITTEN_LENGTH, StandardCharsets.US_ASCII),
                "the value the first attempt made");
            get(node, c, "n");
            assertEquals("5", last().text(), "applied once");
        }
    }

    @Test
    void shouldCountInDecimalKeepTheExpiryRefuseNonIntegersAndApplyARetryOnce()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final Recording c = attach(node);
            record(node, c, RecordWriteRequestFlyweight.OP_INCREMENT, 0, 5, "n", null, 1);
            get(node, c, "n");
            assertEquals(Status.OK, answers.get(0).status());
            assertEquals("5", new String(answers.get(0).value(), ResponseFlyweight.WRITTEN_LENGTH,
                answers.get(0).value().length - ResponseFlyweight.WRITTEN_LENGTH, StandardCharsets.US_ASCII),
                "the answer carries the new value");
            assertEquals("5", last().text());

            // The same write id again (a retry whose answer was lost): answered, not applied a second time.
            record(node, c, RecordWriteRequestFlyweight.OP_INCREMENT, 0, 5, "n", null, 1);
            get(node, c, "n");
            assertEquals(Status.OK, answers.get(answers.size() - 2).status());
            assertEquals("5", last().text(), "exactly once");
            assertEquals(1, node.counters.get(ServerCounter.RETRIES_ANSWERED));

            record(node, c, RecordWriteRequestFlyweight.OP_INCREMENT, 0, -7, "n", null, 2);
            get(node, c, "n");
            assertEquals("-2", last().text());

            put(node, c, "s", "not a number");
            record(node, c, RecordWriteRequestFlyweight.OP_INCREMENT, 0, 1, "s", null, 0);
            assertEquals(Status.NOT_AN_INTEGER, last().status());
            put(node, c, "big", Long.toString(Long.MAX_VALUE));
            record(node, c, RecordWriteRequestFlyweight.OP_INCREMENT, 0, 1, "big", null, 0);
            assertEquals(Status.NOT_AN_INTEGER, last().status(), "overflow refused");
            put(node, c, "lead", "007");
            record(node, c, RecordWriteRequestFlyweight.OP_INCREMENT, 0, 1, "lead", null, 0);
            assertEquals(Status.NOT_AN_INTEGER, last().status(), "as Redis: no leading zeros");

            final long hour = System.currentTimeMillis() + 3_600_000L;
            record(node, c, RecordWriteRequestFlyweight.OP_EXPIRE, 0, hour, "n", null, 0);
            record(node, c, RecordWriteRequestFlyweight.OP_INCREMENT, 0, 1, "n", null, 0);
            record(node, c, RecordWriteRequestFlyweight.OP_TTL, 0, 0, "n", null, 0);
            assertEquals(hour, ByteBuffer.wrap(last().value()).order(ByteOrder.LITTLE_ENDIAN).getLong(),
                "INCR keeps the expiry, as Redis's");
            assertEquals(ValueRecord.FLAG_COUNTER, node.store.getRecord(b("n"))[ValueRecord.FLAGS_OFFSET]);
        }
    }

    @Test
    void shouldNeverReturnAnExpiredValueAndPersistOnRequest()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final Recording c = attach(node);
            final long later = System.currentTimeMillis() + 3_600_000L;
            record(node, c, RecordWriteRequestFlyweight.OP_PUT, 0, later, "t", "cached", 0);
            record(node, c, RecordWriteRequestFlyweight.OP_TTL, 0, 0, "t", null, 0);
            assertEquals(later, ByteBuffer.wrap(last().value()).order(ByteOrder.LITTLE_ENDIAN).getLong());
            assertEquals(later, ValueRecord.expiryMillis(node.store.getRecord(b("t"))), "durable with the value");
            record(node, c, RecordWriteRequestFlyweight.OP_PERSIST, 0, 0, "t", null, 0);
            record(node, c, RecordWriteRequestFlyweight.OP_TTL, 0, 0, "t", null, 0);
            assertEquals(0, ByteBuffer.wrap(last().value()).order(ByteOrder.LITTLE_ENDIAN).getLong(), "persisted");

            record(node, c, RecordWriteRequestFlyweight.OP_EXPIRE, 0, 1, "t", null, 0); // 1 ms after the epoch: past
            assertTrue(node.index.contains(io.rdmakv.protocol.layout.HashedKey.of(b("t"))));
            get(node, c, "t");
            assertEquals(Status.NOT_FOUND, last().status(), "expired: not returned from the pool");
            assertFalse(node.index.contains(io.rdmakv.protocol.layout.HashedKey.of(b("t"))),
                "and removed from it on that access");
            get(node, c, "t");
            assertEquals(Status.NOT_FOUND, last().status(), "nor from RocksDB");
            record(node, c, RecordWriteRequestFlyweight.OP_TTL, 0, 0, "t", null, 0);
            assertEquals(Status.NOT_FOUND, last().status());
            record(node, c, RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT, 0, 0, "t", "fresh", 0);
            get(node, c, "t");
            assertEquals("fresh", last().text(), "an expired key is absent to a condition");
            record(node, c, RecordWriteRequestFlyweight.OP_EXPIRE, 0, later, "absent", null, 0);
            assertEquals(Status.NOT_FOUND, last().status());
        }
    }

    /**
     * The background sweep deletes what expired, from RocksDB and the pool, and nothing else; a key written again while
     * the sweep reads the store (a PUT still in its batch: not in RocksDB when the sweep reads the expired record) is
     * not deleted: the delete is conditioned on the version the sweep read, and decided after the batch is written.
     */
    @Test
    void shouldSweepExpiredKeysOutOfTheStoreAndThePool()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final Recording c = attach(node);
            final long later = System.currentTimeMillis() + 3_600_000L;
            for (int i = 0; i < 600; i++) // more than one step's worth: the sweep resumes where it stopped
            {
                record(node, c, RecordWriteRequestFlyweight.OP_PUT, 0, i % 3 == 0 ? 1 : i % 3 == 1 ? later : 0,
                    "s" + i, "v" + i, 0);
            }
            get(node, c, "s0"); // writes the batch
            int removed = 0;
            for (int step = 0; step < 4; step++)
            {
                removed += node.handler.sweepExpired();
            }
            assertEquals(200, removed, "every expired key, once");
            assertEquals(200, node.counters.get(ServerCounter.EXPIRED_REMOVED));
            for (int i = 0; i < 600; i++)
            {
                final boolean expired = i % 3 == 0;
                assertEquals(expired, node.store.getRecord(b("s" + i)) == null, "s" + i);
                assertEquals(!expired, node.index.contains(io.rdmakv.protocol.layout.HashedKey.of(b("s" + i))),
                    "s" + i);
            }
            for (int step = 0; step < 4; step++)
            {
                assertEquals(0, node.handler.sweepExpired(), "nothing left to remove");
            }

            record(node, c, RecordWriteRequestFlyweight.OP_PUT, 0, 1, "again", "expired", 0);
            get(node, c, "again"); // written: an expired record in RocksDB
            put(node, c, "again", "written again");   // in its batch, not in RocksDB yet
            int swept = 0;
            for (int step = 0; step < 4; step++)
            {
                swept += node.handler.sweepExpired();
            }
            assertEquals(0, swept, "the record the sweep read is no longer the key's");
            get(node, c, "again");
            assertEquals("written again", last().text());
        }
    }
}
