package io.rdmakv.server.pool;

import io.rdmakv.pool.HugePages;
import io.rdmakv.pool.PinPolicy;
import io.rdmakv.pool.PinnedArena;
import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.server.load.DataSetLoader;
import io.rdmakv.server.load.SyntheticDataSet;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PoolWarmUpTest
{
    private static final int PARTITION = 1 << 22;

    @TempDir
    Path dir;

    private PinnedArena arena;

    @AfterEach
    void closeArena()
    {
        if (arena != null)
        {
            arena.close();
        }
    }

    private PoolIndex newIndex(final long poolSize)
    {
        arena = PinnedArena.map(poolSize, PinPolicy.OFF, HugePages.NONE, PARTITION);
        final PoolGeometry geometry = PoolSizing.plan(poolSize, 1024);
        final ExtentAllocator allocator = PoolSizing.newAllocator(geometry, PARTITION, new EpochReclaimer(0, () -> 0));
        return new PoolIndex(arena.partitions(), geometry, allocator, 1, 1);
    }

    @Test
    @Timeout(60)
    void shouldLoadEveryKeyThroughManyBatchesAndMarkComplete()
    {
        // ~12 MiB: six 2 MiB batches at least, so the scan thread and the writer hand batches back and forth.
        final SyntheticDataSet set = new SyntheticDataSet(12_000, 16, 1000);
        DataSetLoader.load(dir, set, n -> { });
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            final PoolIndex index = newIndex(32L << 20);
            final PoolWarmUp.Result result = PoolWarmUp.load(store, index, 1024, 1 << 20);
            assertTrue(result.complete());
            assertTrue(result.scannedAll());
            assertEquals(12_000, result.keysScanned());
            assertEquals(12_000, result.keysInStore());
            assertEquals(12_000, result.loaded());
            assertEquals(set.totalBytes(), result.loadedBytes());
            assertEquals(12_000, index.keyCount());
            final LayoutReader reader = new LayoutReader(arena.address(), (int)arena.size());
            assertTrue(reader.isComplete());
            for (int i = 0; i < 12_000; i += 7)
            {
                assertTrue(set.matches(i, reader.get(set.key(i))), "key " + i + " served from the pool");
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldStopScanningOnceThePoolIsFullAndLeaveItIncomplete()
    {
        // ~40 MiB of data for an 8 MiB pool: the scan must stop soon after the pool fills, not read everything.
        final SyntheticDataSet set = new SyntheticDataSet(40_000, 16, 1000);
        DataSetLoader.load(dir, set, n -> { });
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            final PoolIndex index = newIndex(8L << 20);
            final PoolWarmUp.Result result = PoolWarmUp.load(store, index, 1024, 1 << 20);
            assertFalse(result.complete());
            assertFalse(result.scannedAll(), "stopped early: " + result);
            assertTrue(result.loaded() > 4_000 && result.loaded() < 8_000, "an 8 MiB pool holds ~6,000: " + result);
            assertTrue(result.keysScanned() < 20_000, "the scan stopped near where the pool filled: " + result);
            assertTrue(result.keysScanned() >= result.loaded() + PoolWarmUp.FULL_AFTER_REFUSALS, result.toString());
            assertTrue(result.keysInStore() > 30_000 && result.keysInStore() < 50_000,
                "RocksDB's estimate of the 40,000 keys: " + result);
            final long suggested = PoolWarmUp.suggestedPoolMiB(8L << 20, result.loaded(), result.keysInStore());
            assertTrue(suggested % 64 == 0 && suggested >= 40 && suggested <= 128,
                "40,000 keys need about 50 MiB, rounded up to a multiple of 64 MiB: " + suggested);
            assertEquals(0, index.evictions(), "warm-up never evicts");
            final LayoutReader reader = new LayoutReader(arena.address(), (int)arena.size());
            assertFalse(reader.isComplete());
            assertTrue(set.matches(0, reader.get(set.key(0))), "the first keys are in the pool");
            assertNull(reader.get(set.key(39_999)), "the last key was never read");
        }
    }

    @Test
    @Timeout(60)
    void shouldSkipEntriesBeyondTheLimitsAndThenNotClaimCompleteness()
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            store.put(b("small"), b("fits"));
            store.put(b("large"), new byte[5000]);
            final PoolIndex index = newIndex(4L << 20);
            final PoolWarmUp.Result result = PoolWarmUp.load(store, index, 1024, 4096);
            assertTrue(result.scannedAll());
            assertFalse(result.complete(), "the large value is not in the pool");
            assertEquals(2, result.keysScanned());
            assertEquals(1, result.loaded());
            final LayoutReader reader = new LayoutReader(arena.address(), (int)arena.size());
            assertArrayEquals(b("fits"), reader.get(b("small")));
            assertNull(reader.get(b("large")));
        }
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
