package io.rdmakv.server.pool;

import io.rdmakv.pool.HugePages;
import io.rdmakv.pool.PinPolicy;
import io.rdmakv.pool.PinnedArena;
import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.server.load.SyntheticDataSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link PoolSizing#poolSizeFor}: checked against the real allocator and index, not against its own arithmetic. */
class PoolSizeForDataTest
{
    private static final int AVG = 224;
    private static final int PARTITION = 1 << 30;
    private static final long MIB = 1L << 20;

    @Test
    @Timeout(60)
    void shouldNameAPoolThatHoldsEveryKeyAndIsWithinTenPercentOfTheSmallest()
    {
        for (final SyntheticDataSet set : new SyntheticDataSet[] {
            new SyntheticDataSet(20_000, 16, 1024), new SyntheticDataSet(2_000, 16, 10_240),
            new SyntheticDataSet(60_000, 12, 100)})
        {
            final long size = PoolSizing.poolSizeFor(set.keyCount(), set.keySize(), set.valueSize(), AVG, PARTITION);
            assertEquals(0, size % MIB, set + ": whole MiB");
            assertEquals(set.keyCount(), fill(size, set), set + " in a pool of " + size / MIB + " MiB");
            final long smaller = (size * 9 / 10) & -MIB;
            assertTrue(fill(smaller, set) < set.keyCount(), set + ": " + smaller / MIB + " MiB is too small already");
        }
    }

    @Test
    void shouldSizeIssueFivesGibibyteWithinTheOneTheBenchmarkUses()
    {
        final long oneKib = PoolSizing.poolSizeFor(1 << 20, 16, 1024, AVG, PARTITION);
        assertTrue(oneKib > 1152 * MIB && oneKib <= 1280 * MIB, "1,048,576 x 1 KiB: " + oneKib / MIB + " MiB");
        final long tenKib = PoolSizing.poolSizeFor(104_858, 16, 10_240, AVG, PARTITION);
        assertTrue(tenKib > 1126 * MIB && tenKib <= 1280 * MIB, "104,858 x 10 KiB: " + tenKib / MIB + " MiB");
        assertThrows(IllegalArgumentException.class, () -> PoolSizing.poolSizeFor(1, 16, 100_000, AVG, 64 * 1024));
    }

    /** Keys of {@code set} that a fresh pool of {@code size} takes without evicting (warm-up). */
    private static long fill(final long size, final SyntheticDataSet set)
    {
        try (PinnedArena arena = PinnedArena.map(size, PinPolicy.OFF, HugePages.NONE, PARTITION))
        {
            final PoolGeometry geometry = PoolSizing.plan(size, AVG);
            final ExtentAllocator allocator =
                PoolSizing.newAllocator(geometry, PARTITION, new EpochReclaimer(0, () -> 0));
            final PoolIndex index = new PoolIndex(arena.partitions(), geometry, allocator, 1, 1);
            final byte[] value = new byte[set.valueSize()];
            long stored = 0;
            for (long i = 0; i < set.keyCount(); i++)
            {
                if (index.put(set.key(i), set.value(i, value), false) == PoolIndex.STORED)
                {
                    stored++;
                }
            }
            return stored;
        }
    }
}
