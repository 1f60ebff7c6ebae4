package io.rdmakv.it.softroce;

import io.rdmakv.pool.HugePages;
import io.rdmakv.pool.MemlockLimit;
import io.rdmakv.pool.MemlockLimitException;
import io.rdmakv.pool.PinPolicy;
import io.rdmakv.pool.PinnedArena;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.verbs.VerbsTransportProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.EnumSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The memory pool's memlock check against the real kernel, as an unprivileged user under the guest's default
 * 8 MiB limit (guest-job.sh step 4): a pool above the limit is refused up front with a message naming both figures
 * and the fix; a pool within it is pinned and registered once with the verbs transport; and registering a larger
 * (unpinned) region really fails in the kernel, which is what the up-front check spares an operator from
 * discovering mid-start.
 */
@Tag(SoftRoceGuest.TAG)
@Tag(SoftRoceGuest.UNPRIVILEGED_TAG)
class UnprivilegedPoolMemlockTest
{
    private static final long MIB = 1024 * 1024;

    @Test
    void shouldRefuseAPoolAboveTheMemlockLimitWithTheFiguresAndTheFix()
    {
        final MemlockLimit limit = MemlockLimit.current();
        assertFalse(limit.ipcLockCapability(), "unprivileged run expected: " + limit);
        final long size = 64 * MIB;
        assertFalse(limit.allows(size), "the job's limit should be below 64 MiB: " + limit);

        final MemlockLimitException ex = assertThrows(MemlockLimitException.class,
            () -> PinnedArena.map(size, PinPolicy.REQUIRED, HugePages.NONE).close());

        final String message = ex.getMessage();
        assertTrue(message.contains(Long.toString(size)), message);
        assertTrue(message.contains(Long.toString(limit.softLimitBytes())), message);
        assertTrue(message.contains("ulimit -l"), message);
        assertTrue(message.contains("LimitMEMLOCK"), message);
        assertTrue(message.contains("memlock=-1"), message);
    }

    @Test
    @Timeout(120)
    void shouldPinAndRegisterAPoolWithinTheLimitButTheKernelRefusesMore()
    {
        final VerbsTransportProvider provider = new VerbsTransportProvider();
        assertTrue(provider.isAvailable(), () -> "verbs must be available in the guest: " + provider.unavailabilityCause());

        try (Transport transport = provider.open(TransportConfig.defaults());
            PinnedArena small = PinnedArena.map(2 * MIB, PinPolicy.REQUIRED, HugePages.NONE);
            PinnedArena large = PinnedArena.map(64 * MIB, PinPolicy.OFF, HugePages.NONE))
        {
            assertTrue(small.isPinned());
            final long before = transport.memoryDomain().registrationCount();
            try (MemoryRegion region = transport.memoryDomain().register(
                small.address(), small.size(), EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ)))
            {
                assertEquals(small.size(), region.length());
                assertEquals(small.address(), region.remoteKey().baseAddress());
                assertEquals(small.size(), region.remoteKey().length());
            }
            assertEquals(before + 1, transport.memoryDomain().registrationCount());

            final TransportException refused = assertThrows(TransportException.class,
                () -> transport.memoryDomain().register(large.address(), large.size(),
                    EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ)).close());
            assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank(), refused::toString);
        }
    }
}
