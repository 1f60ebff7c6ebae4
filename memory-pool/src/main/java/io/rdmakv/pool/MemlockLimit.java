package io.rdmakv.pool;

import com.sun.jna.Memory;
import com.sun.jna.Native;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The process's {@code RLIMIT_MEMLOCK} (soft and hard) and whether it has {@code CAP_IPC_LOCK}, which makes the
 * kernel ignore the limit. Used by {@link PinnedArena} before mapping and by a {@code doctor} command to report.
 *
 * @param softLimitBytes the soft limit in bytes, or {@link #UNLIMITED}.
 * @param hardLimitBytes the hard limit in bytes, or {@link #UNLIMITED}.
 * @param ipcLockCapability true when the effective capabilities include {@code CAP_IPC_LOCK}.
 */
public record MemlockLimit(long softLimitBytes, long hardLimitBytes, boolean ipcLockCapability)
{
    /** A limit of {@code RLIM_INFINITY}. */
    public static final long UNLIMITED = -1L;

    private static final int CAP_IPC_LOCK = 14;

    /** Read the current limits through {@code getrlimit(RLIMIT_MEMLOCK)} and the capability from /proc. */
    public static MemlockLimit current()
    {
        final Memory rlimit = new Memory(16);
        if (LibC.INSTANCE.getrlimit(LibC.RLIMIT_MEMLOCK, rlimit) != 0)
        {
            final int errno = Native.getLastError();
            throw new ArenaException("getrlimit(RLIMIT_MEMLOCK) failed: errno " + errno);
        }
        final long soft = rlimit.getLong(0);
        final long hard = rlimit.getLong(8);
        return new MemlockLimit(
            soft == LibC.RLIM_INFINITY ? UNLIMITED : soft,
            hard == LibC.RLIM_INFINITY ? UNLIMITED : hard,
            hasIpcLockCapability());
    }

    /** True if the soft limit is unlimited. */
    public boolean isUnlimited()
    {
        return softLimitBytes == UNLIMITED;
    }

    /** True if the kernel would let this process lock {@code bytes} more bytes (ignoring what is already locked). */
    public boolean allows(final long bytes)
    {
        return ipcLockCapability || isUnlimited() || bytes <= softLimitBytes;
    }

    /**
     * The message for a refusal: requested size, current soft limit (human-readable and exact) and the fixes.
     *
     * @param requestedBytes the size that could not be locked.
     * @param cause one clause saying what failed, e.g. "RLIMIT_MEMLOCK is too small".
     */
    public String describeRefusal(final long requestedBytes, final String cause)
    {
        return describeRefusal("the memory pool", requestedBytes, cause);
    }

    /**
     * The same refusal for memory that is more than the pool (e.g. on verbs: the pool and the transport's buffers,
     * all registered and so pinned).
     *
     * @param what what could not be locked, e.g. "the memory pool".
     */
    public String describeRefusal(final String what, final long requestedBytes, final String cause)
    {
        return "cannot lock " + what + " in RAM: " + cause + ". Requested " +
            ByteSizes.withExactBytes(requestedBytes) + ", current RLIMIT_MEMLOCK soft limit " +
            ByteSizes.withExactBytes(softLimitBytes) + ", hard limit " + ByteSizes.withExactBytes(hardLimitBytes) +
            ". Fix: raise the limit before starting, e.g. `ulimit -l unlimited` (or a value in KiB, at least " +
            ((requestedBytes + 1023) / 1024) + "), systemd `LimitMEMLOCK=infinity` in the unit, " +
            "`docker run --ulimit memlock=-1:-1` for containers (or grant CAP_IPC_LOCK)";
    }

    @Override
    public String toString()
    {
        return "RLIMIT_MEMLOCK soft=" + ByteSizes.withExactBytes(softLimitBytes) +
            " hard=" + ByteSizes.withExactBytes(hardLimitBytes) +
            (ipcLockCapability ? " (CAP_IPC_LOCK: limit not enforced)" : "");
    }

    private static boolean hasIpcLockCapability()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("CapEff:"))
                {
                    final long caps = Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16);
                    return (caps & (1L << CAP_IPC_LOCK)) != 0;
                }
            }
        }
        catch (final IOException | NumberFormatException ignore)
        {
            // Without /proc we cannot tell; assume the limit applies, which only makes the check stricter.
        }
        return false;
    }
}
