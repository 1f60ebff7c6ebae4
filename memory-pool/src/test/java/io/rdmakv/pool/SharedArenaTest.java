package io.rdmakv.pool;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A shared arena is a shared mapping of a memory file that stays open while mapped, and goes with close. */
class SharedArenaTest
{
    @Test
    void shouldMapAMemoryFileSharedAndReleaseItOnClose() throws Exception
    {
        final long size = 1 << 20;
        final long address;
        try (PinnedArena arena = PinnedArena.mapShared(size, PinPolicy.OFF, HugePages.NONE,
            ArenaPartitions.MIN_PARTITION_SIZE))
        {
            assertTrue(arena.isShared());
            address = arena.address();
            arena.partitions().partition(0).putLong(8, 0x1234L);
            assertEquals(0x1234L, arena.partitions().partition(0).getLong(8));
            final List<String> lines = mapping(address);
            assertEquals(1, lines.size(), lines.toString());
            final String[] f = lines.get(0).split("\\s+");
            assertEquals("rw-s", f[1], "shared and writable for its owner");
            assertTrue(lines.get(0).contains("/memfd:rdmakv-pool"), lines.get(0));
            assertTrue(openDescriptors().stream().anyMatch(l -> l.startsWith("/memfd:rdmakv-pool")),
                "the memory file stays open while mapped, so a transport can share it");
        }
        assertTrue(mapping(address).isEmpty(), "unmapped on close");
        assertFalse(openDescriptors().stream().anyMatch(l -> l.startsWith("/memfd:rdmakv-pool")),
            "the memory file is closed with the arena");
    }

    @Test
    void shouldKeepPrivateAnonymousMemoryByDefault() throws Exception
    {
        try (PinnedArena arena = PinnedArena.map(1 << 20, PinPolicy.OFF, HugePages.NONE,
            ArenaPartitions.MIN_PARTITION_SIZE))
        {
            assertFalse(arena.isShared());
            assertTrue(mapping(arena.address()).stream().noneMatch(l -> l.contains("/memfd:")));
        }
    }

    private static List<String> mapping(final long address) throws Exception
    {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
            .filter(l -> Long.parseUnsignedLong(l.substring(0, l.indexOf('-')), 16) == address).toList();
    }

    private static List<String> openDescriptors() throws Exception
    {
        try (var fds = Files.list(Path.of("/proc/self/fd")))
        {
            return fds.map(p ->
            {
                try
                {
                    return Files.readSymbolicLink(p).toString();
                }
                catch (final Exception e)
                {
                    return "";
                }
            }).toList();
        }
    }
}
