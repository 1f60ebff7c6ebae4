package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.KeyHasher;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.replication.WriteIds;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.WriteRecords;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.WriteBatch;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The write-id records on disk follow the ones in memory (a real RocksDB): a record goes with the batch of its write;
 * a failed write's record and an idle writer's records are deleted. Under FSYNC the same, through the group commit:
 * each write carries its records into its group's batch (no sync of their own), a group that fails writes none of
 * them. The FSYNC path's reports reach the test only when its thread drains them, so each check is exact, not timed.
 */
class DurableRecordsTest
{
    private static final long NOW = 1_000_000_000L;
    private static final long RETAIN = 60_000_000_000L;

    @TempDir
    Path dir;

    private final ServerCounters counters = new ServerCounters();
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
    private final UnsafeBuffer key = new UnsafeBuffer("k".getBytes(StandardCharsets.US_ASCII));
    private final HashedKey hashedKey = new HashedKey().wrap(key, 0, 1);
    private final Answers client = new Answers();
    private final PutRequestFlyweight request = new PutRequestFlyweight().wrap(new UnsafeBuffer(new byte[64]), 0, 64);

    @Test
    void shouldDeleteOnDiskTheRecordsOfAFailedWriteAndOfAnIdleWriter() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            final DurableRecords durable = new DurableRecords(store);
            final WriteIds ids = new WriteIds(new ResponseSender(counters, 4096), counters, 4, 8, RETAIN, durable);
            final WriteOutcome outcome = ids.around(new Answered());
            applied(store, ids, durable, outcome, 1, 7);
            applied(store, ids, durable, outcome, 2, 8);
            assertEquals(List.of("1 7 answer 0", "2 8 answer 0"), onDisk(store));

            assertEquals(WriteIds.Start.APPLY, ids.begin(client, 3, put(3, 1, 9), NOW));
            write(durable, store);
            ids.endCurrent();
            outcome.failed(client, 3, Status.BUSY, "a backup could not leave the in-sync set");
            assertEquals(List.of("1 7 answer 0", "2 8 answer 0"), onDisk(store), "the failed write's record went");

            ids.sweep(NOW + RETAIN + 2_000_000_000L);
            assertEquals(0, ids.writers());
            assertEquals(List.of(), onDisk(store), "idle writers' records went with them");
        }
    }

    @Test
    @Timeout(60)
    void shouldKeepUnderFsyncTheRecordsEachWriteCarriesInItsGroupCommit() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            final DurableRecords durable = new DurableRecords(store);
            assertTrue(durable.kept());
            final WriteIds ids = new WriteIds(new ResponseSender(counters, 4096), counters, 4, 8, RETAIN, durable);
            final GroupCommitWritePath path = new GroupCommitWritePath(store, counters, ids.around(new Answered()),
                () -> { }, durable);

            assertEquals(WriteIds.Start.APPLY, ids.begin(client, 1, withId(1, 1, 7), NOW));
            path.put(client, 1, request, hashedKey, key, 0, 1);
            ids.endCurrent();
            drain(path);
            assertEquals(List.of("1 7 answer 0"), onDisk(store), "a PUT's record, in its group's batch");

            assertEquals(WriteIds.Start.APPLY, ids.begin(client, 2, withId(2, 1, 8), NOW));
            path.delete(client, 2, request, hashedKey);
            ids.endCurrent();
            drain(path);
            assertEquals(WriteIds.Start.APPLY, ids.begin(client, 3, withId(3, 1, 9), NOW));
            path.delete(client, 3, request, hashedKey);
            ids.endCurrent();
            drain(path);
            assertEquals(List.of("1 7 answer 0", "1 8 answer 0", "1 9 answer " + Status.NOT_FOUND.code()),
                onDisk(store), "a DELETE's answer as the committer found the key: there, then gone");

            // A replica's write: the sequence it applied from its sender; a removal waiting goes with it.
            ids.forget(1, 8);
            durable.applied(2, 99, 5);
            path.put(client, 4, request, hashedKey, key, 0, 1);
            ids.endCurrent();
            drain(path);
            assertEquals(List.of("1 7 answer 0", "1 9 answer " + Status.NOT_FOUND.code(), "applied 2 99 5"),
                onDisk(store));
            assertEquals(4, store.groupCommittedWrites());
            assertEquals(4, store.syncCount(), "one sync per group, as without records (each write drained alone)");
        }
    }

    @Test
    @Timeout(60)
    void shouldWriteNoRecordOfAWriteWhoseGroupCommitFailsUnderFsync() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            final DurableRecords durable = new DurableRecords(store);
            final WriteIds ids = new WriteIds(new ResponseSender(counters, 4096), counters, 4, 8, RETAIN, durable);
            final List<String> failures = new ArrayList<>();
            final GroupCommitWritePath path = new GroupCommitWritePath(store, counters, ids.around(new Answered()
            {
                @Override
                public void failed(final Endpoint endpoint, final long correlationId, final Status status,
                    final String reason)
                {
                    failures.add(correlationId + " " + status);
                }
            }), () -> { }, durable);
            assertEquals(WriteIds.Start.APPLY, ids.begin(client, 1, withId(1, 1, 7), NOW));
            path.put(client, 1, request, hashedKey, key, 0, 1);
            ids.endCurrent();
            drain(path);

            path.failBatchAfter(0);
            assertEquals(WriteIds.Start.APPLY, ids.begin(client, 2, withId(2, 1, 8), NOW));
            durable.applied(2, 99, 5);
            path.batch(client, 2, request, oneEntry());
            ids.endCurrent();
            assertTrue(store.awaitSubmittedWrites(30_000_000_000L), "the committer is done with the group");
            assertEquals(List.of("1 7 answer 0"), onDisk(store),
                "the group failed: RocksDB untouched, neither the write's record nor the sequence (not yet reported)");
            drain(path);
            assertEquals(List.of("2 " + Status.STORE_ERROR), failures);
            assertTrue(store.awaitSubmittedWrites(30_000_000_000L));
            assertEquals(List.of("1 7 answer 0"), onDisk(store));
            assertEquals(null, ids.answered(1, 8), "forgotten: a retry applies it");

            ids.sweep(NOW + RETAIN + 2_000_000_000L);
            assertEquals(0, ids.writers());
            assertTrue(store.awaitSubmittedWrites(30_000_000_000L));
            assertEquals(List.of(), onDisk(store), "idle writers' records went with them, through the committer");
        }
    }

    private static void drain(final GroupCommitWritePath path)
    {
        while (path.inFlightWrites() > 0)
        {
            path.doWork();
            Thread.onSpinWait();
        }
    }

    /** A batch of one PUT ("k" -> "v"). */
    private static KeyBatch oneEntry()
    {
        final byte[] entries = BatchWriteRequestFlyweight.encodeEntries(List.of(b("k")), List.of(b("v")));
        final KeyBatch batch = new KeyBatch(KeyHasher.STANDARD);
        batch.wrap(new UnsafeBuffer(entries), 0, entries.length, 1);
        return batch;
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Write {@code sequence} of {@code writer}: begun, written with its record, reported durable. */
    private void applied(final RocksStore store, final WriteIds ids, final DurableRecords durable,
        final WriteOutcome outcome, final long writer, final long sequence) throws Exception
    {
        assertEquals(WriteIds.Start.APPLY, ids.begin(client, sequence, put(sequence, writer, sequence), NOW));
        write(durable, store);
        ids.endCurrent();
        outcome.putDurable(client, sequence, hashedKey, key, 0, 1);
    }

    /** What a write path does with the write's batch: the records in it, written. */
    private void write(final DurableRecords durable, final RocksStore store) throws Exception
    {
        try (WriteBatch batch = new WriteBatch())
        {
            durable.addTo(batch, Status.OK);
            store.write(batch);
        }
    }

    /** A request carrying write {@code sequence} of {@code writer}, its completed-below mark 1 (all records load). */
    private PutRequestFlyweight withId(final long correlationId, final long writer, final long sequence)
    {
        final PutRequestFlyweight put = new PutRequestFlyweight().wrap(buffer, 0, buffer.capacity());
        put.header(MessageType.PUT_REQUEST, correlationId).keyAndValue(key, 0, 1, key, 0, 1);
        put.appendWriteId(writer, sequence, 1);
        return put;
    }

    private PutRequestFlyweight put(final long correlationId, final long writer, final long sequence)
    {
        final PutRequestFlyweight put = new PutRequestFlyweight().wrap(buffer, 0, buffer.capacity());
        put.header(MessageType.PUT_REQUEST, correlationId).keyAndValue(key, 0, 1, key, 0, 1);
        put.appendWriteId(writer, sequence, sequence);
        return put;
    }

    private static List<String> onDisk(final RocksStore store)
    {
        final List<String> found = new ArrayList<>();
        store.writeRecords().load(new WriteRecords.Visitor()
        {
            @Override
            public void write(final long writer, final long sequence, final long completedBelow, final int answer,
                final long dataVersion, final byte[] counter)
            {
                found.add(writer + " " + sequence + " answer " + answer);
            }

            @Override
            public void applied(final int sender, final long incarnation, final long sequence)
            {
                found.add("applied " + sender + " " + incarnation + " " + sequence);
            }
        });
        return found.stream().sorted().toList();
    }

    /** The answers go nowhere: the records are what is checked. */
    private static class Answered implements WriteOutcome
    {
        @Override
        public void putDurable(final Endpoint endpoint, final long correlationId, final HashedKey key,
            final DirectBuffer value, final int valueIndex, final int valueLength)
        {
        }

        @Override
        public void deleteDurable(final Endpoint endpoint, final long correlationId, final HashedKey key,
            final boolean existed)
        {
        }

        @Override
        public void failed(final Endpoint endpoint, final long correlationId, final Status status,
            final String reason)
        {
        }

        @Override
        public void unwritten(final Endpoint endpoint, final long correlationId, final Status status,
            final long dataVersion, final long expiryMillis, final String reason)
        {
        }
    }

    private static final class Answers extends AnsweringEndpoint
    {
        @Override
        protected void onResponse(final ResponseFlyweight response)
        {
        }
    }
}
