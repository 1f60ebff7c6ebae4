package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.ValueRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RocksStoreTest
{
    @TempDir
    Path dir;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(30)
    void shouldPutGetDeleteAndSurviveReopen()
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            store.put(b("a"), b("1"));
            store.put(b("b"), b("2"));
            store.put(b("a"), b("3"));
            store.delete(b("b"));
            assertArrayEquals(b("3"), store.get(b("a")));
            assertNull(store.get(b("b")));
        }
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            assertArrayEquals(b("3"), store.get(b("a")));
            assertNull(store.get(b("b")));
        }
    }

    @Test
    @Timeout(30)
    void shouldOpenWithTheMemtableSizeAskedForAndRejectATinyOne() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT, RocksStore.DEFAULT_QUEUE_CAPACITY, 3L << 20,
            WalRecovery.TOLERATE_TAIL, 0))
        {
            store.put(b("a"), b("1"));
        }
        // Every column family (the default one only ever holds keys of the format before slot prefixes; the third
        // the write-id records and replication sequences, WriteRecords; the fourth bare values of the format before
        // value records).
        assertEquals(List.of(String.valueOf(3L << 20), String.valueOf(3L << 20), String.valueOf(3L << 20),
            String.valueOf(3L << 20)), writeBufferSizesInOptionsFiles(dir));
        final Path other = dir.resolve("default");
        try (RocksStore store = RocksStore.open(other, Durability.DEFAULT))
        {
            store.put(b("a"), b("1"));
        }
        assertEquals(List.of(String.valueOf(RocksStore.DEFAULT_WRITE_BUFFER_SIZE),
            String.valueOf(RocksStore.DEFAULT_WRITE_BUFFER_SIZE), String.valueOf(RocksStore.DEFAULT_WRITE_BUFFER_SIZE),
            String.valueOf(RocksStore.DEFAULT_WRITE_BUFFER_SIZE)),
            writeBufferSizesInOptionsFiles(other));
        assertThrows(IllegalArgumentException.class, () -> RocksStore.open(dir, Durability.DEFAULT,
            RocksStore.DEFAULT_QUEUE_CAPACITY, 1024L, WalRecovery.TOLERATE_TAIL, 0));
    }

    /** The write_buffer_size RocksDB recorded in the newest OPTIONS file of {@code db}, one per column family. */
    private static List<String> writeBufferSizesInOptionsFiles(final Path db) throws java.io.IOException
    {
        return optionInOptionsFile(db, "write_buffer_size");
    }

    /** Every value of RocksDB option {@code name} in the newest OPTIONS file RocksDB wrote in {@code db}. */
    private static List<String> optionInOptionsFile(final Path db, final String name) throws java.io.IOException
    {
        final Path newest;
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(db))
        {
            newest = files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
                .max(java.util.Comparator.comparing(Path::toString)).orElseThrow();
        }
        final List<String> sizes = new ArrayList<>();
        for (final String line : java.nio.file.Files.readAllLines(newest, StandardCharsets.UTF_8))
        {
            final String t = line.trim();
            if (t.startsWith(name + "="))
            {
                sizes.add(t.substring(name.length() + 1));
            }
        }
        return sizes;
    }

    @Test
    @Timeout(30)
    void shouldFlushEveryFamilyTogether() throws Exception
    {
        // What RocksDB runs with, as it wrote it: a replica's applied sequence and the write-id records (write-state)
        // must never survive a lost WAL tail without the data they describe (RocksStoreOpener).
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            store.put(b("a"), b("1"));
        }
        assertEquals(List.of("true"), optionInOptionsFile(dir, "atomic_flush"));
    }

    @Test
    @Timeout(30)
    void shouldReadAndWriteDirectBuffersWithoutCopiesInDefaultMode()
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            final ByteBuffer key = ByteBuffer.allocateDirect(16);
            final ByteBuffer value = ByteBuffer.allocateDirect(64);
            key.put(b("k1")).flip();
            value.put(b("hello world")).flip();
            store.put(key, value);

            final ByteBuffer out = ByteBuffer.allocateDirect(4);
            key.rewind();
            assertEquals(11, store.get(key, out), "full length is reported even when the buffer is smaller");
            final ByteBuffer missing = ByteBuffer.allocateDirect(8).put(b("nope")).flip();
            assertEquals(RocksStore.NOT_FOUND, store.get(missing, ByteBuffer.allocateDirect(8)));

            key.rewind();
            store.delete(key);
            assertNull(store.get(b("k1")));
        }
    }

    @Test
    @Timeout(30)
    void shouldIterateEveryKeyInStoreKeyOrder()
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            for (int i = 0; i < 100; i++)
            {
                store.put(b(String.format("key-%03d", i)), b("v" + i));
            }
            final List<String> keys = new ArrayList<>();
            store.forEach((k, v) ->
            {
                keys.add(new String(k, StandardCharsets.UTF_8));
                return true;
            });
            assertEquals(100, keys.size());
            final List<String> expected = new ArrayList<>(keys);
            expected.sort(java.util.Comparator.comparingInt((String k) -> StoreKeys.hashSlotOfStoreKey(
                StoreKeys.encode(b(k)))).thenComparing(java.util.Comparator.naturalOrder()));
            assertEquals(expected, keys, "slot by slot (the slot prefix), then key order");

            final AtomicInteger seen = new AtomicInteger();
            store.forEach((k, v) -> seen.incrementAndGet() < 10);
            assertEquals(10, seen.get(), "visitor returning false stops the iteration");
        }
    }

    @Test
    @Timeout(30)
    void shouldRefuseASecondOpenOfTheSameDirectoryWithATypedError()
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            final StoreException ex = assertThrows(StoreException.class, () -> RocksStore.open(dir, Durability.DEFAULT));
            assertTrue(ex.getMessage().contains(dir.toAbsolutePath().toString()), ex.getMessage());
            assertTrue(store.writesInline());
        }
    }

    @Test
    @Timeout(60)
    void shouldShareOneSyncAmongConcurrentWritersInFsyncMode() throws Exception
    {
        final int writers = 16;
        final int perWriter = 40;
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            final CountDownLatch start = new CountDownLatch(1);
            final List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++)
            {
                final int id = w;
                final Thread t = new Thread(() ->
                {
                    try
                    {
                        start.await();
                        for (int i = 0; i < perWriter; i++)
                        {
                            store.put(b("w" + id + "-" + i), b("value-" + id + "-" + i));
                        }
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                    }
                });
                t.start();
                threads.add(t);
            }
            start.countDown();
            for (final Thread t : threads)
            {
                t.join();
            }
            final int total = writers * perWriter;
            assertEquals(total, store.groupCommittedWrites());
            final long syncs = store.syncCount();
            // How many writes share a sync here depends on the scheduler; that writes queued during a sync share
            // the next one is forced in shouldCommitEveryWriteQueuedDuringASyncInOneBatch. What holds under any
            // schedule: every write was synced, at most one sync each, and a writer's writes never share one.
            assertTrue(syncs <= total, "at most one sync per write: " + syncs + " syncs for " + total);
            assertTrue(syncs >= perWriter, "a writer's writes cannot share a sync with each other: " + syncs);
        }
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            for (int w = 0; w < writers; w++)
            {
                for (int i = 0; i < perWriter; i++)
                {
                    assertArrayEquals(b("value-" + w + "-" + i), store.get(b("w" + w + "-" + i)));
                }
            }
        }
    }

    @Test
    @Timeout(30)
    void shouldCompleteAsyncWritesInSubmissionOrder() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            final int n = 500;
            final List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
            final CountDownLatch done = new CountDownLatch(n);
            for (int i = 0; i < n; i++)
            {
                final byte[] value = i == n - 1 ? null : ValueRecord.of(b("v" + i), i + 1, 0); // submit takes records
                final boolean accepted = value == null ?
                    store.submitDelete(b("same"), i, (ctx, failure) -> { order.add((Integer)ctx); done.countDown(); }) :
                    store.submitPut(b("same"), value, i, (ctx, failure) -> { order.add((Integer)ctx); done.countDown(); });
                assertTrue(accepted);
            }
            assertTrue(done.await(20, TimeUnit.SECONDS));
            for (int i = 0; i < n; i++)
            {
                assertEquals(i, order.get(i));
            }
            assertNull(store.get(b("same")), "the last write (a delete) wins");
            assertTrue(store.syncCount() <= n);
        }
    }

    /**
     * Group commit, forced: the committer is held inside the first write's callback (it runs on the committer thread
     * after that write's sync) while the other writes are queued, so they must all go out in the next batch: two
     * syncs for all of them, whatever the scheduler does.
     */
    @Test
    @Timeout(60)
    void shouldCommitEveryWriteQueuedDuringASyncInOneBatch() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            final int queued = 300;
            final CountDownLatch committerHeld = new CountDownLatch(1);
            final CountDownLatch release = new CountDownLatch(1);
            final CountDownLatch done = new CountDownLatch(queued + 1);
            final AtomicInteger failures = new AtomicInteger();
            assertTrue(store.submitPut(b("first"), ValueRecord.of(b("v"), 1, 0), null, (ctx, failure) ->
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
                done.countDown();
            }));
            assertTrue(committerHeld.await(30, TimeUnit.SECONDS), "the first write was synced");
            assertEquals(1, store.syncCount());
            for (int i = 0; i < queued; i++)
            {
                assertTrue(store.submitPut(b("q" + i), ValueRecord.of(b("v" + i), i + 1, 0), i, (ctx, failure) ->
                {
                    if (failure != null)
                    {
                        failures.incrementAndGet();
                    }
                    done.countDown();
                }));
            }
            release.countDown();
            assertTrue(done.await(30, TimeUnit.SECONDS));
            assertEquals(0, failures.get());
            assertEquals(queued + 1, store.groupCommittedWrites());
            assertEquals(2, store.syncCount(), "every write queued during a sync shares the next one");
            assertArrayEquals(b("v" + (queued - 1)), store.get(b("q" + (queued - 1))));
        }
    }

    /** The child JVM writes acknowledged keys and is killed with SIGKILL; every acknowledged key must be there. */
    @Test
    @Timeout(60)
    void shouldKeepEveryAcknowledgedWriteAcrossKill9InDefaultMode() throws Exception
    {
        final String java = ProcessHandle.current().info().command().orElse("java");
        // Slot-prefixed keys hash with Agrona, which needs jdk.internal.misc as every rdmakv JVM has it (bin/rdmakv).
        final Process child = new ProcessBuilder(java, "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), KillTarget.class.getName(), dir.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
        int acked = -1;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = out.readLine()) != null)
            {
                if (line.startsWith("ACK "))
                {
                    acked = Integer.parseInt(line.substring(4));
                    if (acked >= 2000)
                    {
                        break;
                    }
                }
            }
        }
        child.destroyForcibly(); // SIGKILL: no shutdown hook, no flush, no close
        assertTrue(child.waitFor(20, TimeUnit.SECONDS));
        assertTrue(acked >= 2000, "child acknowledged " + acked);
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            for (int i = 0; i <= acked; i++)
            {
                assertArrayEquals(b("value-" + i), store.get(b("key-" + i)), "acknowledged key-" + i + " lost");
            }
        }
    }

    /** Child process of the kill -9 test: writes forever, printing each acknowledged index. */
    public static final class KillTarget
    {
        public static void main(final String[] args)
        {
            final RocksStore store = RocksStore.open(Path.of(args[0]), Durability.DEFAULT);
            for (int i = 0; ; i++)
            {
                store.put(b("key-" + i), b("value-" + i));
                System.out.println("ACK " + i);
                System.out.flush();
            }
        }
    }
}
