package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
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
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.WriteBatch;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The write-id records on disk follow the ones in memory (a real RocksDB): a record goes with the batch of its write;
 * a failed write's record and an idle writer's records are deleted; under FSYNC nothing is kept.
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
    void shouldKeepNothingUnderFsync() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            final DurableRecords durable = new DurableRecords(store);
            assertFalse(durable.kept());
            durable.write(1, 7, 7, null);
            assertFalse(durable.pending(), "the group committer builds FSYNC's batches: records stay in memory");
        }
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
            public void write(final long writer, final long sequence, final long completedBelow, final int answer)
            {
                found.add(writer + " " + sequence + " answer " + answer);
            }

            @Override
            public void applied(final int sender, final long incarnation, final long sequence)
            {
                found.add("applied " + sender);
            }
        });
        return found.stream().sorted().toList();
    }

    /** The answers go nowhere: the records are what is checked. */
    private static final class Answered implements WriteOutcome
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
