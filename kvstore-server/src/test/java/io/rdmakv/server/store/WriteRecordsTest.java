package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.ValueRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The replication state kept beside the data, with a real RocksDB reopened: a record and a sequence written in the
 * data's batch are there after a reopen; records below their writer's mark are skipped; a number 65,536 later takes
 * the same entry; removals hold; and nothing of it is a key to the store's readers (scans, counts).
 */
class WriteRecordsTest
{
    @TempDir
    Path dir;

    private final List<String> found = new ArrayList<>();

    @Test
    void shouldFindAfterAReopenWhatWasWrittenInTheDatasBatch() throws RocksDBException
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT);
             WriteBatch batch = new WriteBatch())
        {
            final WriteRecords records = store.writeRecords();
            final ByteBuffer key = direct(StoreKeys.encode("k".getBytes(StandardCharsets.UTF_8)));
            store.addPut(batch, key, direct(ValueRecord.of("v".getBytes(StandardCharsets.UTF_8), 1, 0)));
            records.addWrite(batch, 7, 3, 2, 0);
            records.addApplied(batch, 2, 0xABCL, 41);
            store.write(batch);
            batch.clear();

            records.addWrite(batch, 7, 1, 1, 0);          // below writer 7's mark (2): skipped when loading
            records.addWrite(batch, 8, 5, 5, 1);          // NOT_FOUND (a DELETE of nothing)
            records.addWrite(batch, 8, 6, 5, 0);
            records.addForget(batch, 8, 6);                  // undone by a reconcile
            records.addWrite(batch, 9, 10, 10, 0);
            records.addWrite(batch, 9, 10 + WriteRecords.RECORDS_PER_WRITER, 11, 0); // takes 10's entry
            records.addWrite(batch, 10, 1, 1, 0);
            records.addForgetWriter(batch, 10);              // idle: forgotten with every record
            records.addApplied(batch, 2, 0xABCL, 42);        // a later sequence from the same sender
            records.addApplied(batch, 3, 0xDEFL, 9);
            records.addWrite(batch, 11, 1, 1, 0, 777, new org.agrona.concurrent.UnsafeBuffer(
                "-42".getBytes(StandardCharsets.US_ASCII)), 0, 3); // a counter's PUT: its version and value
            records.addWrite(batch, 12, 1, 1, 0, 888, null, 0, 0); // a PUT: its version
            store.write(batch);
        }
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            store.writeRecords().load(new WriteRecords.Visitor()
            {
                @Override
                public void write(final long writer, final long sequence, final long completedBelow, final int answer,
                    final long dataVersion, final byte[] counter)
                {
                    found.add("write " + writer + "/" + sequence + " below " + completedBelow + " answer " + answer +
                        (dataVersion != 0 ? " version " + dataVersion : "") +
                        (counter != null ? " counter " + new String(counter, StandardCharsets.US_ASCII) : ""));
                }

                @Override
                public void applied(final int sender, final long incarnation, final long sequence)
                {
                    found.add("applied " + sender + " " + Long.toHexString(incarnation) + " " + sequence);
                }
            });
            assertEquals(List.of("applied 2 abc 42", "applied 3 def 9",
                "write 11/1 below 1 answer 0 version 777 counter -42", "write 12/1 below 1 answer 0 version 888",
                "write 7/3 below 2 answer 0", "write 8/5 below 5 answer 1", "write 9/65546 below 11 answer 0"),
                found.stream().sorted().toList());

            final List<String> keys = new ArrayList<>();
            store.forEach((k, v) -> keys.add(new String(k, StandardCharsets.UTF_8)));
            assertEquals(List.of("k"), keys, "the records are no keys of the store");
            assertEquals(1, store.ranges().scan(0, io.rdmakv.protocol.ProtocolLimits.HASH_SLOT_COUNT - 1, (k, v) -> true), "nor of a range scan");
        }
    }

    private static ByteBuffer direct(final byte[] bytes)
    {
        return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    }
}
