package io.rdmakv.pool;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PinnedArenaTest
{
    private static final long GIB = 1L << 30;
    private static final long MIB = 1L << 20;

    @Test
    @Timeout(30)
    void shouldMapAnArenaLargerThan2GiBAndUseBothEndsAndEveryPartitionBoundary()
    {
        final long lockedBefore = ProcStatus.lockedBytes();
        final PinnedArena arena = PinnedArena.map(3 * GIB, PinPolicy.OFF, HugePages.NONE);
        try
        {
            assertEquals(lockedBefore, ProcStatus.lockedBytes(), "pin policy OFF must not lock anything");
            final ArenaPartitions partitions = arena.partitions();
            assertEquals(3, partitions.partitionCount());
            assertEquals(1 << 30, partitions.partitionSize());
            assertFalse(arena.isPinned());

            final long[] offsets = { 0, GIB - 8, GIB, 2 * GIB - 8, 2 * GIB, 3 * GIB - 8 };
            for (final long offset : offsets)
            {
                partitions.bufferFor(offset).putLong(partitions.partitionOffset(offset), ~offset);
            }
            for (final long offset : offsets)
            {
                assertEquals(~offset, partitions.bufferFor(offset).getLong(partitions.partitionOffset(offset)));
                // Read through a view of the raw address too: the partitions really are one contiguous range.
                assertEquals(~offset, new UnsafeBuffer(arena.address() + offset, 8).getLong(0));
            }
            // The last byte of partition 0 and the first of partition 1 are neighbours in memory.
            partitions.partition(0).putByte((int)(GIB - 1), (byte)0x5A);
            partitions.partition(1).putByte(0, (byte)0xA5);
            assertEquals((short)0xA55A, new UnsafeBuffer(arena.address() + GIB - 1, 2).getShort(0));
        }
        finally
        {
            arena.close();
        }
        assertTrue(arena.isClosed());
        arena.close();
        assertThrows(IndexOutOfBoundsException.class, () -> arena.partitions().partition(0).getLong(0),
            "a view used after close must fail a bounds check, not touch unmapped memory");
    }

    @Test
    @Timeout(30)
    void shouldPinUnderTheRealLimitOfThisMachineOrRefuseWithBothFigures()
    {
        final MemlockLimit limit = MemlockLimit.current();
        assertEquals(ProcStatus.softMemlockLimit(), limit.softLimitBytes(), "getrlimit disagrees with /proc");
        final long size = 4 * MIB;
        if (limit.allows(size))
        {
            final long lockedBefore = ProcStatus.lockedBytes();
            try (PinnedArena arena = PinnedArena.map(size, PinPolicy.REQUIRED, HugePages.NONE))
            {
                assertTrue(arena.isPinned());
                assertTrue(ProcStatus.lockedBytes() - lockedBefore >= size, "kernel does not report the lock");
                arena.partitions().partition(0).setMemory(0, (int)size, (byte)1);
            }
            assertTrue(ProcStatus.lockedBytes() - lockedBefore < size, "close did not unlock");
        }
        else
        {
            final MemlockLimitException ex = assertThrows(MemlockLimitException.class,
                () -> PinnedArena.map(size, PinPolicy.REQUIRED, HugePages.NONE));
            assertEquals(size, ex.requestedBytes());
            assertTrue(ex.getMessage().contains("ulimit -l"), ex.getMessage());
        }

        if (!limit.ipcLockCapability() && !limit.isUnlimited())
        {
            final long tooBig = (limit.softLimitBytes() + 2 * MIB) & -4096L;
            final MemlockLimitException ex = assertThrows(MemlockLimitException.class,
                () -> PinnedArena.map(tooBig, PinPolicy.REQUIRED, HugePages.NONE));
            assertTrue(ex.getMessage().contains(ByteSizes.humanReadable(tooBig)), ex.getMessage());
            assertTrue(ex.getMessage().contains(Long.toString(limit.softLimitBytes())), ex.getMessage());
        }
    }

    @Test
    @Timeout(30)
    void shouldFallBackToNormalPagesWhenNoExplicitHugePagesAreReserved()
    {
        final long freeHugePages = ProcStatus.kibField("/proc/meminfo", "HugePages_Free:");
        try (PinnedArena arena = PinnedArena.map(4 * MIB, PinPolicy.OFF, HugePages.EXPLICIT))
        {
            if (freeHugePages < 2)
            {
                assertEquals(HugePages.NONE, arena.hugePages());
            }
            arena.partitions().partition(0).putLong((int)(4 * MIB - 8), 42);
            assertEquals(42, arena.partitions().partition(0).getLong((int)(4 * MIB - 8)));
        }
    }

    @Test
    @Timeout(30)
    void shouldAdviseTransparentHugePagesAndStayUsable()
    {
        try (PinnedArena arena = PinnedArena.map(4 * MIB, PinPolicy.BEST_EFFORT, HugePages.TRANSPARENT))
        {
            assertTrue(arena.hugePages() == HugePages.TRANSPARENT || arena.hugePages() == HugePages.NONE);
            arena.partitions().partition(0).putInt(0, 7);
            assertEquals(7, arena.partitions().partition(0).getInt(0));
        }
    }

    @Test
    void shouldRejectBadArgumentsWithATypedError()
    {
        assertThrows(ArenaException.class, () -> PinnedArena.map(0, PinPolicy.OFF, HugePages.NONE));
        assertThrows(ArenaException.class, () -> PinnedArena.map(1000, PinPolicy.OFF, HugePages.NONE));
        assertThrows(ArenaException.class, () -> PinnedArena.map(4096, PinPolicy.OFF, HugePages.NONE, 3000));
        assertThrows(ArenaException.class, () -> PinnedArena.map(4096, null, HugePages.NONE));
        assertThrows(ArenaException.class, () -> PinnedArena.map(1L << 50, PinPolicy.OFF, HugePages.NONE),
            "a mapping the kernel refuses must be a typed error");
    }

    @Test
    void shouldFormatByteSizesForHumans()
    {
        assertEquals("1.0 GiB", ByteSizes.humanReadable(GIB));
        assertEquals("8.0 MiB", ByteSizes.humanReadable(8 * MIB));
        assertEquals("1.5 KiB", ByteSizes.humanReadable(1536));
        assertEquals("512 B", ByteSizes.humanReadable(512));
        assertEquals("unlimited", ByteSizes.humanReadable(MemlockLimit.UNLIMITED));
        assertEquals("64.0 KiB (65536 bytes)", ByteSizes.withExactBytes(65536));
    }
}
