package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.WriteCallback;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Atomic multi-key writes (BATCH_WRITE) on one node, driven straight into the request handler on the test's thread (no
 * transport): every entry lands in RocksDB and the pool or none does, keys of two slots are refused whole, a retry of a
 * batch's write id is answered without applying it again; under both durabilities (FSYNC: the batch is one unit of
 * the group committer, answered in order with the writes around it once its group commit is synced).
 */
class KeyBatchWritesTest
{
    private static final long WRITER = 0xba7c_0001L;

    @TempDir
    Path dir;

    private final List<Answer> answers = new ArrayList<>();
    private final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(16384));
    private long correlation;

    private record Answer(long id, Status status, long version, byte[] value)
    {
        String text()
        {
            return new String(value, StandardCharsets.UTF_8);
        }
    }

    private final class Recording extends AnsweringEndpoint
    {
        @Override
        protected void onResponse(final ResponseFlyweight response)
        {
            answers.add(new Answer(response.correlationId(), response.status(), response.version(),
                response.value()));
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

    /** A BATCH_WRITE of pairs {@code key, value} (value null: DELETE); {@code sequence} > 0 adds a write id. */
    private Answer batch(final HandlerOnOneThread node, final Recording endpoint, final long sequence,
        final String... pairs)
    {
        final List<byte[]> keys = new ArrayList<>();
        final List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < pairs.length; i += 2)
        {
            keys.add(b(pairs[i]));
            values.add(pairs[i + 1] == null ? null : b(pairs[i + 1]));
        }
        final byte[] entries = BatchWriteRequestFlyweight.encodeEntries(keys, values);
        final long id = ++correlation;
        final BatchWriteRequestFlyweight w = new BatchWriteRequestFlyweight();
        w.wrap(message, 0, message.capacity()).header(MessageType.BATCH_WRITE_REQUEST, id)
            .write(keys.size(), new UnsafeBuffer(entries), 0, entries.length);
        if (sequence > 0)
        {
            w.appendWriteId(WRITER, sequence, 1);
        }
        node.handler.onMessage(endpoint, message, 0, w.encodedLength());
        return answerOf(node, id);
    }

    private void put(final HandlerOnOneThread node, final Recording endpoint, final String key, final String value)
    {
        final long id = ++correlation;
        final PutRequestFlyweight put = new PutRequestFlyweight();
        put.wrap(message, 0, message.capacity()).header(MessageType.PUT_REQUEST, id);
        put.keyAndValue(b(key), b(value));
        node.handler.onMessage(endpoint, message, 0, put.encodedLength());
        node.handler.doWork(); // the PUT's batch is written at the duty cycle
        assertEquals(Status.OK, answerOf(node, id).status());
    }

    private Answer get(final HandlerOnOneThread node, final Recording endpoint, final String key)
    {
        final long id = ++correlation;
        final KeyRequestFlyweight get = new KeyRequestFlyweight();
        get.wrap(message, 0, message.capacity()).header(MessageType.GET_REQUEST, id);
        get.key(new UnsafeBuffer(b(key)), 0, b(key).length);
        node.handler.onMessage(endpoint, message, 0, get.encodedLength());
        return answerOf(node, id);
    }

    /** A PUT sent and not waited for (FSYNC: it waits for its group commit); returns its correlation id. */
    private long sendPut(final HandlerOnOneThread node, final Recording endpoint, final String key,
        final String value)
    {
        final long id = ++correlation;
        final PutRequestFlyweight put = new PutRequestFlyweight();
        put.wrap(message, 0, message.capacity()).header(MessageType.PUT_REQUEST, id);
        put.keyAndValue(b(key), b(value));
        node.handler.onMessage(endpoint, message, 0, put.encodedLength());
        return id;
    }

    /**
     * The answer to request {@code id}, running the handler's duty cycle until it comes (FSYNC: a write is answered
     * once its group commit is synced, on the committer thread).
     */
    private Answer answerOf(final HandlerOnOneThread node, final long id)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true)
        {
            for (final Answer a : answers)
            {
                if (a.id() == id)
                {
                    return a;
                }
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("no answer to request " + id + " in " + answers);
            }
            if (node.handler.doWork() == 0)
            {
                Thread.onSpinWait();
            }
        }
    }

    private static void failBatchesAfter(final HandlerOnOneThread node, final int entry)
    {
        if (node.bareLocal instanceof InlineBatchWritePath inline)
        {
            inline.failBatchAfter(entry);
        }
        else
        {
            ((GroupCommitWritePath)node.bareLocal).failBatchAfter(entry);
        }
    }

    @ParameterizedTest
    @EnumSource(Durability.class)
    void shouldApplyEveryEntryOfABatchToTheStoreAndThePool(final Durability durability)
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir, durability))
        {
            final Recording c = attach(node);
            put(node, c, "{u}:a", "old-a");
            put(node, c, "{u}:gone", "doomed");
            final Answer done = batch(node, c, 0, "{u}:a", "new-a", "{u}:b", "new-b", "{u}:gone", null,
                "{u}:never", null, "{u}:b", "last-b");
            assertEquals(Status.OK, done.status(), done.toString());
            assertArrayEquals(b("new-a"), node.store.get(b("{u}:a")));
            assertArrayEquals(b("last-b"), node.store.get(b("{u}:b")), "a key given twice: the later entry wins");
            assertNull(node.store.get(b("{u}:gone")));
            assertNull(node.store.get(b("{u}:never")), "deleting nothing is no error");
            // The pool follows: the values are served from it, with the data versions of their records.
            final long before = node.counters.get(ServerCounter.GETS_RPC_FROM_POOL);
            final Answer a = get(node, c, "{u}:a");
            assertEquals("new-a", a.text());
            assertEquals(ValueRecord.dataVersion(node.store.getRecord(b("{u}:a"))), a.version());
            assertEquals("last-b", get(node, c, "{u}:b").text());
            assertEquals(before + 2, node.counters.get(ServerCounter.GETS_RPC_FROM_POOL), "both from the pool");
            assertEquals(Status.NOT_FOUND, get(node, c, "{u}:gone").status(), "removed from the pool too");
            final long va = ValueRecord.dataVersion(node.store.getRecord(b("{u}:a")));
            final long vb = ValueRecord.dataVersion(node.store.getRecord(b("{u}:b")));
            assertNotEquals(va, vb, "each PUT of the batch has its own data version");
            assertEquals(1, node.counters.get(ServerCounter.BATCH_WRITES));
        }
    }

    @ParameterizedTest
    @EnumSource(Durability.class)
    void shouldRefuseKeysOfTwoSlotsWriting(final Durability durability)
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir, durability))
        {
            final Recording c = attach(node);
            final Answer refused = batch(node, c, 0, "{u}:a", "1", "{v}:b", "2");
            assertEquals(Status.CROSSSLOT, refused.status());
            assertTrue(refused.text().contains("hash tag"), refused.text());
            assertNull(node.store.get(b("{u}:a")), "nothing written");
            assertNull(node.store.get(b("{v}:b")));
            assertEquals(1, node.counters.get(ServerCounter.BATCH_CROSSSLOT));
            assertEquals(0, node.counters.get(ServerCounter.BATCH_WRITES));
            assertEquals(Status.OK, batch(node, c, 0, "{u}:a", "1").status(), "the connection is still served");
        }
    }

    @ParameterizedTest
    @EnumSource(Durability.class)
    void shouldRefuseABatchBeyondOneKeyAndValueWritingNothing(final Durability durability)
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir, durability))
        {
            final Recording c = attach(node);
            // Limits: 64-byte keys, 4 KiB values. Three 2 KiB values are within each value's limit, not together.
            final String big = "x".repeat(2048);
            final Answer refused = batch(node, c, 0, "{u}:1", big, "{u}:2", big, "{u}:3", big);
            assertEquals(Status.VALUE_TOO_LARGE, refused.status(), refused.toString());
            assertNull(node.store.get(b("{u}:1")));
            final Answer tooLong = batch(node, c, 0, "{u}:1", "x".repeat(4097));
            assertEquals(Status.VALUE_TOO_LARGE, tooLong.status());
        }
    }

    @ParameterizedTest
    @EnumSource(Durability.class)
    void shouldLeaveNothingOfABatchThatFailsMidway(final Durability durability)
    {
        try (HandlerOnOneThread node = HandlerOnOneThread.withBareLocalPath(dir, durability))
        {
            final Recording c = attach(node);
            put(node, c, "{u}:a", "old-a");
            put(node, c, "{u}:c", "old-c");
            final byte[] recordBefore = node.store.getRecord(b("{u}:a"));
            failBatchesAfter(node, 2); // after two entries joined the batch
            final Answer failed = batch(node, c, 0, "{u}:a", "new-a", "{u}:b", "new-b", "{u}:c", null,
                "{u}:d", "new-d");
            assertEquals(Status.STORE_ERROR, failed.status(), failed.toString());
            assertArrayEquals(recordBefore, node.store.getRecord(b("{u}:a")), "RocksDB saw none of it");
            assertNull(node.store.get(b("{u}:b")));
            assertArrayEquals(b("old-c"), node.store.get(b("{u}:c")), "the DELETE was not applied either");
            assertNull(node.store.get(b("{u}:d")));
            assertEquals("old-a", get(node, c, "{u}:a").text(), "nor the pool");
            assertEquals(Status.NOT_FOUND, get(node, c, "{u}:b").status());

            failBatchesAfter(node, -1);
            assertEquals(Status.OK, batch(node, c, 0, "{u}:a", "new-a", "{u}:c", null).status(), "served after");
            assertEquals("new-a", get(node, c, "{u}:a").text());
            assertNull(node.store.get(b("{u}:c")));
        }
    }

    @ParameterizedTest
    @EnumSource(Durability.class)
    void shouldAnswerARetriedBatchWithoutApplyingItAgain(final Durability durability)
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir, durability))
        {
            final Recording c = attach(node);
            assertEquals(Status.OK, batch(node, c, 1, "{u}:n", "first", "{u}:m", "first").status());
            put(node, c, "{u}:n", "later"); // another writer's PUT after the batch
            final Answer retried = batch(node, c, 1, "{u}:n", "first", "{u}:m", "first");
            assertEquals(Status.OK, retried.status(), "the retry learns its batch was applied");
            assertArrayEquals(b("later"), node.store.get(b("{u}:n")), "and it is not applied a second time");
            assertEquals("later", get(node, c, "{u}:n").text());
            assertEquals(1, node.counters.get(ServerCounter.RETRIES_ANSWERED));
        }
    }

    /**
     * FSYNC: a batch between two PUTs of one of its keys, all three sent before any is synced, is answered between
     * them and leaves the last PUT's value, in the store and the pool: one completion order for the path's writes.
     */
    @Test
    void shouldAnswerABatchUnderFsyncInOrderWithThePutsAroundIt()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir, Durability.FSYNC))
        {
            final Recording c = attach(node);
            final long first = sendPut(node, c, "{o}:k", "put-1");
            final long batchId = correlation + 1;
            final List<byte[]> keys = List.of(b("{o}:k"), b("{o}:other"));
            final List<byte[]> values = List.of(b("batch"), b("batch"));
            final byte[] entries = BatchWriteRequestFlyweight.encodeEntries(keys, values);
            final BatchWriteRequestFlyweight w = new BatchWriteRequestFlyweight();
            correlation++;
            w.wrap(message, 0, message.capacity()).header(MessageType.BATCH_WRITE_REQUEST, batchId)
                .write(keys.size(), new UnsafeBuffer(entries), 0, entries.length);
            node.handler.onMessage(c, message, 0, w.encodedLength());
            final long last = sendPut(node, c, "{o}:k", "put-2");
            assertEquals(Status.OK, answerOf(node, last).status());
            assertEquals(List.of(first, batchId, last), answers.stream().map(Answer::id).toList(), "in order");
            assertTrue(answers.stream().allMatch(a -> a.status() == Status.OK), answers.toString());
            assertArrayEquals(b("put-2"), node.store.get(b("{o}:k")));
            assertEquals("put-2", get(node, c, "{o}:k").text(), "the pool followed in order");
            assertEquals("batch", get(node, c, "{o}:other").text());
            assertEquals(1, node.counters.get(ServerCounter.BATCH_WRITES));
        }
    }

    /**
     * FSYNC: a putIfAbsent of a key a batch still waiting for its sync wrote is refused (its decision reads RocksDB,
     * which the committer wrote) and that refusal is answered after the batch, never before it: the batch is one of
     * the writes the path's held answers wait for.
     */
    @Test
    void shouldAnswerARefusalThatReadABatchAfterTheBatchUnderFsync()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir, Durability.FSYNC))
        {
            final Recording c = attach(node);
            final long batchId = correlation + 1;
            final List<byte[]> keys = List.of(b("{r}:k"), b("{r}:other"));
            final List<byte[]> values = List.of(b("batch"), b("batch"));
            final byte[] entries = BatchWriteRequestFlyweight.encodeEntries(keys, values);
            final BatchWriteRequestFlyweight w = new BatchWriteRequestFlyweight();
            correlation++;
            w.wrap(message, 0, message.capacity()).header(MessageType.BATCH_WRITE_REQUEST, batchId)
                .write(keys.size(), new UnsafeBuffer(entries), 0, entries.length);
            node.handler.onMessage(c, message, 0, w.encodedLength());
            final long refusedId = ++correlation;
            final RecordWriteRequestFlyweight r = new RecordWriteRequestFlyweight();
            r.wrap(message, 0, message.capacity()).header(MessageType.RECORD_WRITE_REQUEST, refusedId);
            r.write(RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT, 0, 0, b("{r}:k"), b("second"));
            node.handler.onMessage(c, message, 0, r.encodedLength());
            assertEquals(Status.CONDITION_FAILED, answerOf(node, refusedId).status());
            assertEquals(List.of(batchId, refusedId), answers.stream().map(Answer::id).toList(), "the batch first");
            assertEquals("batch", get(node, c, "{r}:k").text());
        }
    }

    /**
     * FSYNC: a batch arriving while as many writes as the path bounds wait for their sync is answered BUSY, as a PUT
     * would be, and writes nothing; the writes waiting are answered once the committer goes on. The committer is
     * held inside a write's completion while the writes are queued.
     */
    @Test
    void shouldAnswerBusyToABatchBeyondTheWritesWaitingForSync() throws Exception
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir, Durability.FSYNC))
        {
            final Recording c = attach(node);
            final CountDownLatch held = new CountDownLatch(1);
            final CountDownLatch release = new CountDownLatch(1);
            final WriteCallback holding = (context, failure) ->
            {
                held.countDown();
                try
                {
                    release.await(30, TimeUnit.SECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            };
            assertTrue(node.store.submitPut(b("hold"), ValueRecord.of(b("h"), 1, 0), null, holding));
            long lastPut = 0;
            try
            {
                assertTrue(held.await(30, TimeUnit.SECONDS));
                for (int i = 0; i < GroupCommitWritePath.MAX_IN_FLIGHT_WRITES; i++)
                {
                    lastPut = sendPut(node, c, "{q}:" + i, "v");
                }
                assertEquals(List.of(), answers, "every PUT waits for its sync");
                final Answer busy = batch(node, c, 0, "{q}:a", "1", "{q}:b", "2");
                assertEquals(Status.BUSY, busy.status(), busy.toString());
            }
            finally
            {
                release.countDown(); // the committer goes on (and the store closes promptly if this test failed)
            }
            assertEquals(Status.OK, answerOf(node, lastPut).status());
            assertNull(node.store.get(b("{q}:a")), "the refused batch wrote nothing");
            assertEquals(Status.OK, batch(node, c, 0, "{q}:a", "1", "{q}:b", "2").status(), "taken once there is room");
            assertArrayEquals(b("2"), node.store.get(b("{q}:b")));
        }
    }
}
