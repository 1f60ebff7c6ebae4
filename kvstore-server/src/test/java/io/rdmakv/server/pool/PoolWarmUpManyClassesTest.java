package io.rdmakv.server.pool;

import io.rdmakv.pool.HugePages;
import io.rdmakv.pool.PinPolicy;
import io.rdmakv.pool.PinnedArena;
import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Warm-up of a restarted node whose data fits its pool many times over, with the server's default settings (extent
 * allocator, grace period, key and value limits) and a small pool. With one 2 MiB slab per size class, 14 slabs for
 * ~30 classes, this loaded 155 of the 256 keys and left the pool INCOMPLETE.
 */
class PoolWarmUpManyClassesTest
{
    private static final long POOL_SIZE = 32L << 20;
    private static final int KEYS = 256;

    private PinnedArena arena;

    @TempDir
    Path dir;

    @AfterEach
    void closeArena()
    {
        if (arena != null)
        {
            arena.close();
        }
    }

    @Test
    void shouldLoadEveryKeyAndMarkCompleteWhenValuesOfManySizeClassesFit()
    {
        final ServerConfig config = ServerConfig.defaults();
        final Random random = new Random(7);
        final byte[][] values = new byte[KEYS][];
        long dataBytes = 0;
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            for (int k = 0; k < KEYS; k++)
            {
                values[k] = new byte[40 + random.nextInt(2960)];   // ~0.1 .. 3 KiB: about 30 size classes
                random.nextBytes(values[k]);
                store.put(key(k), values[k]);
                dataBytes += values[k].length;
            }
            assertTrue(dataBytes * 8 < POOL_SIZE, "the data fits many times over: " + dataBytes);

            final PoolIndex index = newIndex(config);
            final PoolWarmUp.Result result =
                PoolWarmUp.load(store, index, config.maxKeyBytes(), config.maxValueBytes());

            assertEquals(KEYS, result.keysInStore());
            assertEquals(KEYS, result.loaded(), "keys loaded into a pool " + POOL_SIZE / dataBytes + "x the data");
            assertTrue(result.complete());
            assertTrue(index.isComplete());
            assertEquals(0, index.evictions());
            final LayoutReader reader = new LayoutReader(arena.address(), (int)arena.size());
            assertTrue(reader.isComplete(), "the pool header says COMPLETE: one-sided misses are definitive");
            for (int k = 0; k < KEYS; k++)
            {
                assertArrayEquals(values[k], reader.get(key(k)), "key " + k);
            }
        }
    }

    private PoolIndex newIndex(final ServerConfig config)
    {
        final int partitionSize = (int)config.poolPartitionSize();
        final PoolGeometry geometry = PoolSizing.plan(POOL_SIZE, config.indexAvgEntryBytes());
        arena = PinnedArena.map(POOL_SIZE, PinPolicy.OFF, HugePages.NONE, partitionSize);
        final EpochReclaimer reclaimer = new EpochReclaimer(config.reclaimGraceMillis() * 1_000_000L,
            new SystemNanoClock());
        final ExtentAllocator allocator = PoolSizing.newAllocator(geometry, partitionSize, reclaimer);
        return new PoolIndex(arena.partitions(), geometry, allocator, 1, 1);
    }

    private static byte[] key(final int k)
    {
        return ("warm/" + k).getBytes(StandardCharsets.UTF_8);
    }
}
