package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.ValueRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An atomic multi-key write as one unit of the FSYNC group committer ({@link RocksStore#submitBatch}): written whole
 * with the group that takes it (one sync), completed once and in order with the writes queued around it, and all or
 * nothing when its group fails. The committer is held inside a first write's callback (on its thread, after that
 * write's sync) while the writes under test are queued, so they all go out in the next group whatever the scheduler
 * does.
 */
@Timeout(60)
class GroupCommitBatchTest
{
    @TempDir
    Path dir;

    private final List<String> order = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, StoreException> failures = new ConcurrentHashMap<>();
    private final Map<String, Boolean> existed = new ConcurrentHashMap<>();
    private final CountDownLatch committerHeld = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private CountDownLatch done;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] record(final String value, final long version)
    {
        return ValueRecord.of(b(value), version, 0);
    }

    /** Records each completion's name, failure and (deletions) existence, in completion order. */
    private final WriteCallback recording = new WriteCallback()
    {
        @Override
        public void onWriteComplete(final Object context, final StoreException failure)
        {
            complete((String)context, failure);
        }

        @Override
        public void onDeleteComplete(final Object context, final boolean keyExisted, final StoreException failure)
        {
            existed.put((String)context, keyExisted);
            complete((String)context, failure);
        }
    };

    private void complete(final String name, final StoreException failure)
    {
        order.add(name);
        if (failure != null)
        {
            failures.put(name, failure);
        }
        done.countDown();
    }

    /** Queue a write whose completion holds the committer until {@link #release}; returns once it holds it. */
    private void holdCommitter(final RocksStore store) throws InterruptedException
    {
        assertTrue(store.submitPut(b("hold"), record("h", 1), null, (ctx, failure) ->
        {
            committerHeld.countDown();
            try
            {
                release.await(30, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }));
        assertTrue(committerHeld.await(30, TimeUnit.SECONDS), "the holding write was synced");
    }

    @Test
    void shouldCommitABatchWholeInOneSyncInOrderWithTheWritesQueuedAroundIt() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            store.put(b("{b}:old"), b("there before"));
            holdCommitter(store);
            final long syncsBefore = store.syncCount();
            final long writesBefore = store.groupCommittedWrites();
            done = new CountDownLatch(6);
            assertTrue(store.submitPut(b("{b}:before"), record("p", 2), "put-before", recording));
            final StoreBatch batch = new StoreBatch(4).put(b("{b}:x"), record("x1", 3)).put(b("{b}:y"), record("y", 4))
                .delete(b("{b}:old")).put(b("{b}:x"), record("x2", 5));
            assertTrue(store.submitBatch(batch, "batch", recording));
            assertTrue(store.submitPut(b("{b}:after"), record("a", 6), "put-after", recording));
            assertTrue(store.submitDelete(b("{b}:x"), "delete-x", recording));
            assertTrue(store.submitDelete(b("{b}:old"), "delete-old", recording));
            assertTrue(store.submitDelete(b("{b}:y"), "delete-y", recording));
            release.countDown();
            assertTrue(done.await(30, TimeUnit.SECONDS));

            assertEquals(Map.of(), failures);
            assertEquals(List.of("put-before", "batch", "put-after", "delete-x", "delete-old", "delete-y"), order,
                "completed in submission order, the batch once");
            assertEquals(syncsBefore + 1, store.syncCount(), "the batch and the writes around it: one sync");
            assertEquals(writesBefore + 6, store.groupCommittedWrites(), "the batch counts as one write");
            // Deletions queued after the batch see it, in order: its later PUT of x, its DELETE of old.
            assertEquals(Boolean.TRUE, existed.get("delete-x"));
            assertEquals(Boolean.FALSE, existed.get("delete-old"), "the batch deleted it first");
            assertEquals(Boolean.TRUE, existed.get("delete-y"));
            assertArrayEquals(b("p"), store.get(b("{b}:before")));
            assertArrayEquals(b("a"), store.get(b("{b}:after")));
            assertNull(store.get(b("{b}:x")));
            assertNull(store.get(b("{b}:y")));
            assertNull(store.get(b("{b}:old")));
        }
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            assertArrayEquals(b("p"), store.get(b("{b}:before")), "synced: there after a reopen");
            assertNull(store.get(b("{b}:old")));
        }
    }

    @Test
    void shouldApplyNothingOfABatchWhoseGroupCommitFails() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            store.put(b("{f}:a"), b("old-a"));
            store.put(b("{f}:c"), b("old-c"));
            holdCommitter(store);
            done = new CountDownLatch(3);
            assertTrue(store.submitPut(b("{f}:p"), record("p", 2), "put", recording));
            final StoreBatch failing = new StoreBatch(4).put(b("{f}:a"), record("new-a", 3))
                .put(b("{f}:b"), record("new-b", 4)).delete(b("{f}:c")).put(b("{f}:d"), record("new-d", 5))
                .failWhileAdding(2); // two entries already in the group's write batch
            assertTrue(store.submitBatch(failing, "failing", recording));
            assertTrue(store.submitDelete(b("{f}:c"), "delete-c", recording));
            release.countDown();
            assertTrue(done.await(30, TimeUnit.SECONDS));

            assertEquals(List.of("put", "failing", "delete-c"), order);
            assertNotNull(failures.get("failing"), "the batch is told it failed");
            assertTrue(failures.get("failing").getMessage().contains("injected"), failures.toString());
            assertNotNull(failures.get("put"), "its group is one WAL write: the writes sharing it failed too");
            assertNotNull(failures.get("delete-c"));
            assertArrayEquals(b("old-a"), store.get(b("{f}:a")), "none of the batch reached RocksDB");
            assertNull(store.get(b("{f}:b")));
            assertArrayEquals(b("old-c"), store.get(b("{f}:c")), "nor its DELETE");
            assertNull(store.get(b("{f}:d")));
            assertNull(store.get(b("{f}:p")));

            done = new CountDownLatch(1);
            assertTrue(store.submitBatch(new StoreBatch(2).put(b("{f}:a"), record("new-a", 6)).delete(b("{f}:c")),
                "again", recording));
            assertTrue(done.await(30, TimeUnit.SECONDS));
            assertNull(failures.get("again"), "the committer goes on: " + failures.get("again"));
            assertArrayEquals(b("new-a"), store.get(b("{f}:a")));
            assertNull(store.get(b("{f}:c")));
        }
    }

    @Test
    void shouldWriteABatchInlineUnderDefaultDurability()
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            done = new CountDownLatch(1);
            assertTrue(store.submitBatch(new StoreBatch(2).put(b("{d}:a"), record("a", 1)).put(b("{d}:b"),
                record("b", 2)), "inline", recording));
            assertEquals(List.of("inline"), order, "completed before submitBatch returned");
            assertArrayEquals(b("b"), store.get(b("{d}:b")));
        }
    }
}
