package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.Status;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The records a write carries to the group committer ({@link KeptRecords}) go into its group's one write batch: no
 * sync and no RocksDB write of their own, all or nothing with the group. The committer is held inside the first
 * write's callback (on its thread, after that write's sync) while the others are queued, so they all form the next
 * group whatever the scheduler does.
 */
class KeptRecordsTest
{
    private static final long WRITER = 7;

    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void shouldWriteTheRecordsOfEveryWriteOfAGroupInItsOneSync() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            final int queued = 200;
            final CountDownLatch release = new CountDownLatch(1);
            final CountDownLatch done = new CountDownLatch(queued + 2);
            final AtomicInteger failures = new AtomicInteger();
            holdCommitter(store, release, done);
            for (int i = 0; i < queued; i++)
            {
                // Even: a PUT (its data version in its record); odd: a DELETE of nothing (answered NOT_FOUND).
                final KeptRecords kept = new KeptRecords().write(WRITER, i + 1, 1, KeptRecords.OWN_OUTCOME,
                    i % 2 == 0 ? 1000 + i : 0, null);
                final WriteCallback counted = (ctx, failure) ->
                {
                    if (failure != null)
                    {
                        failures.incrementAndGet();
                    }
                    done.countDown();
                };
                assertTrue(i % 2 == 0 ?
                    store.submitPut(key("q" + i), ValueRecord.of(b("v"), 1000 + i, 0), kept, null, counted) :
                    store.submitDelete(key("absent" + i), kept, null, counted));
            }
            assertTrue(store.submitPut(key("replicated"), ValueRecord.of(b("r"), 1, 0),
                new KeptRecords().applied(3, 99, 12).forget(WRITER, 1), null, (ctx, failure) -> done.countDown()));
            assertTrue(store.submitRecords(new KeptRecords().forget(WRITER, 2)));
            release.countDown();
            assertTrue(done.await(30, TimeUnit.SECONDS));
            assertTrue(store.awaitSubmittedWrites(TimeUnit.SECONDS.toNanos(30)));

            assertEquals(0, failures.get());
            assertEquals(2, store.syncCount(), "the records went with the writes' one sync, none of their own");
            assertEquals(queued + 2, store.groupCommittedWrites(), "records alone are not a write");
            final List<String> found = onDisk(store);
            assertEquals(queued - 2 + 1, found.size(), found.toString());
            assertTrue(found.contains("applied 3 99 12"));
            assertTrue(found.contains("7 3 answer " + Status.OK.code() + " version 1002"));
            assertTrue(found.contains("7 4 answer " + Status.NOT_FOUND.code() + " version 0"), "found nothing");
            assertTrue(!found.contains("7 1 answer 0 version 1000") &&
                !found.contains("7 2 answer " + Status.NOT_FOUND.code() + " version 0"),
                "removed in the same group, after the writes that recorded them");
        }
    }

    @Test
    @Timeout(60)
    void shouldWriteNoRecordOfAGroupThatFails() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            final CountDownLatch release = new CountDownLatch(1);
            final CountDownLatch done = new CountDownLatch(4);
            final AtomicInteger failures = new AtomicInteger();
            holdCommitter(store, release, done);
            final WriteCallback counted = (ctx, failure) ->
            {
                if (failure != null)
                {
                    failures.incrementAndGet();
                }
                done.countDown();
            };
            assertTrue(store.submitPut(key("a"), ValueRecord.of(b("v"), 5, 0),
                new KeptRecords().write(WRITER, 1, 1, KeptRecords.OWN_OUTCOME, 5, null).applied(3, 99, 12), null,
                counted));
            assertTrue(store.submitBatch(new StoreBatch(2).put(b("b"), ValueRecord.of(b("v"), 6, 0))
                .put(b("c"), ValueRecord.of(b("v"), 7, 0)).failWhileAdding(1),
                new KeptRecords().write(WRITER, 2, 1, KeptRecords.OWN_OUTCOME, 0, null), null, counted));
            assertTrue(store.submitDelete(key("d"), new KeptRecords().write(WRITER, 3, 1, KeptRecords.OWN_OUTCOME, 0,
                null), null, counted));
            release.countDown();
            assertTrue(done.await(30, TimeUnit.SECONDS));

            assertEquals(3, failures.get(), "the group failed whole");
            assertEquals(List.of(), onDisk(store), "no record and no sequence of a write that failed");
            assertNull(store.get(b("a")));
            assertNull(store.get(b("b")));
        }
    }

    @Test
    void shouldWriteTheRecordsInTheWritesBatchUnderDefaultDurability() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            final List<Object> completed = new ArrayList<>();
            assertTrue(store.submitPut(key("a"), ValueRecord.of(b("v"), 5, 0),
                new KeptRecords().write(WRITER, 1, 1, KeptRecords.OWN_OUTCOME, 5, null), "put",
                (ctx, failure) -> completed.add(failure == null ? ctx : failure)));
            assertTrue(store.submitDelete(key("none"), new KeptRecords().write(WRITER, 2, 1,
                KeptRecords.OWN_OUTCOME, 0, null), "delete", (ctx, failure) -> completed.add(ctx)));
            assertEquals(List.of("put", "delete"), completed);
            assertArrayEquals(b("v"), store.get(b("a")));
            assertEquals(List.of("7 1 answer 0 version 5", "7 2 answer " + Status.NOT_FOUND.code() + " version 0"),
                onDisk(store));
        }
    }

    /** Submit a first write whose callback holds the committer until {@code release}; returns once it is held. */
    private static void holdCommitter(final RocksStore store, final CountDownLatch release, final CountDownLatch done)
        throws InterruptedException
    {
        final CountDownLatch held = new CountDownLatch(1);
        assertTrue(store.submitPut(b("first"), ValueRecord.of(b("v"), 1, 0), null, (ctx, failure) ->
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
            done.countDown();
        }));
        assertTrue(held.await(30, TimeUnit.SECONDS), "the first write was synced");
        assertEquals(1, store.syncCount());
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
                found.add(writer + " " + sequence + " answer " + answer + " version " + dataVersion);
            }

            @Override
            public void applied(final int sender, final long incarnation, final long sequence)
            {
                found.add("applied " + sender + " " + incarnation + " " + sequence);
            }
        });
        return found.stream().sorted().toList();
    }

    private static HashedKey key(final String s)
    {
        final byte[] bytes = b(s);
        return new HashedKey().wrap(new UnsafeBuffer(bytes), 0, bytes.length);
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
