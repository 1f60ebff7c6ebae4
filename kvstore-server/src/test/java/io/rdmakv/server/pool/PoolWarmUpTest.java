package io.rdmakv.server.pool;

import io.rdmakv.pool.HugePages;
import io.rdmakv.pool.PinPolicy;
import io.rdmakv.pool.PinnedArena;
import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.load.DataSetLoader;
import io.rdmakv.server.load.SyntheticDataSet;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreKeys;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PoolWarmUpTest
{
    private static final int PARTITION = 1 << 22;
    private static final long MANY_CLASSES_POOL_SIZE = 32L << 20;
    private static final int MANY_CLASSES_KEYS = 256;

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
            // The scan runs in store-key order: slot by slot (StoreKeys).
            int first = 0;
            int last = 0;
            for (int i = 1; i < 40_000; i++)
            {
                final int hashSlot = StoreKeys.hashSlotOfStoreKey(StoreKeys.encode(set.key(i)));
                first = hashSlot < StoreKeys.hashSlotOfStoreKey(StoreKeys.encode(set.key(first))) ? i : first;
                last = hashSlot > StoreKeys.hashSlotOfStoreKey(StoreKeys.encode(set.key(last))) ? i : last;
            }
            assertTrue(set.matches(first, reader.get(set.key(first))), "the first keys are in the pool");
            assertNull(reader.get(set.key(last)), "the last key was never read");
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

    /**
     * Data that fits the pool many times over, spread over ~30 size classes, with the server's default settings
     * (extent allocator, grace period, key and value limits) and a small pool. With the first allocator's one 2 MiB
     * slab per size class (14 slabs for ~30 classes) this loaded 155 of the 256 keys and left the pool INCOMPLETE.
     */
    @Test
    void shouldLoadEveryKeyAndMarkCompleteWhenValuesOfManySizeClassesFit()
    {
        final ServerConfig config = ServerConfig.defaults();
        final Random random = new Random(7);
        final byte[][] values = new byte[MANY_CLASSES_KEYS][];
        long dataBytes = 0;
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            for (int k = 0; k < MANY_CLASSES_KEYS; k++)
            {
                values[k] = new byte[40 + random.nextInt(2960)];   // ~0.1 .. 3 KiB: about 30 size classes
                random.nextBytes(values[k]);
                store.put(manyClassesKey(k), values[k]);
                dataBytes += values[k].length;
            }
            assertTrue(dataBytes * 8 < MANY_CLASSES_POOL_SIZE, "the data fits many times over: " + dataBytes);

            final PoolIndex index = newIndexWithServerDefaults(config);
            final PoolWarmUp.Result result =
                PoolWarmUp.load(store, index, config.maxKeyBytes(), config.maxValueBytes());

            assertEquals(MANY_CLASSES_KEYS, result.keysInStore());
            assertEquals(MANY_CLASSES_KEYS, result.loaded(), "keys loaded into a pool " + MANY_CLASSES_POOL_SIZE / dataBytes + "x the data");
            assertTrue(result.complete());
            assertTrue(index.isComplete());
            assertEquals(0, index.evictions());
            final LayoutReader reader = new LayoutReader(arena.address(), (int)arena.size());
            assertTrue(reader.isComplete(), "the pool header says COMPLETE: one-sided misses are definitive");
            for (int k = 0; k < MANY_CLASSES_KEYS; k++)
            {
                assertArrayEquals(values[k], reader.get(manyClassesKey(k)), "key " + k);
            }
        }
    }

    private PoolIndex newIndexWithServerDefaults(final ServerConfig config)
    {
        final int partitionSize = (int)config.poolPartitionSize();
        final PoolGeometry geometry = PoolSizing.plan(MANY_CLASSES_POOL_SIZE, config.indexAvgEntryBytes());
        arena = PinnedArena.map(MANY_CLASSES_POOL_SIZE, PinPolicy.OFF, HugePages.NONE, partitionSize);
        final EpochReclaimer reclaimer = new EpochReclaimer(config.reclaimGraceMillis() * 1_000_000L,
            new SystemNanoClock());
        final ExtentAllocator allocator = PoolSizing.newAllocator(geometry, partitionSize, reclaimer);
        return new PoolIndex(arena.partitions(), geometry, allocator, 1, 1);
    }

    private static byte[] manyClassesKey(final int k)
    {
        return ("warm/" + k).getBytes(StandardCharsets.UTF_8);
    }
}
