package io.rdmakv.pool;

import com.sun.jna.Native;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One anonymous private mapping of {@code size} bytes, optionally on huge pages and locked in RAM, viewed as
 * {@link ArenaPartitions}. It is allocated once at start-up and registered once per transport; nothing here is on
 * the data path.
 *
 * <p>With {@link PinPolicy#REQUIRED} the soft {@code RLIMIT_MEMLOCK} is compared with {@code size} before
 * mapping, and the arena refuses with a {@link MemlockLimitException} that names both figures and the fixes;
 * the same happens if {@code mlock} fails anyway. {@link PinPolicy#BEST_EFFORT} logs one warning and continues
 * unpinned; {@link PinPolicy#OFF} never calls {@code mlock} (and maps with {@code MAP_NORESERVE}).
 *
 * <p>{@link #close()} unlocks and unmaps, is idempotent, and detaches the partition views so a later access fails
 * a bounds check instead of touching unmapped memory. It must not race with users of the views.
 */
public final class PinnedArena implements AutoCloseable
{
    /** The default partition size: 1 GiB. */
    public static final int DEFAULT_PARTITION_SIZE = ArenaPartitions.MAX_PARTITION_SIZE;
    /** Arena sizes must be a multiple of the base page size. */
    public static final int PAGE_SIZE = 4096;
    /** The explicit huge page size assumed for rounding ({@code MAP_HUGETLB} default size on x86-64/aarch64). */
    public static final long HUGE_PAGE_SIZE = 2L << 20;

    private static final Logger LOG = LoggerFactory.getLogger(PinnedArena.class);

    private final long address;
    private final long size;
    private final long mappedLength;
    private final boolean pinned;
    private final HugePages hugePages;
    private final ArenaPartitions partitions;
    /** The memory file behind a shared arena (kept open while mapped, so a transport can share it), else -1. */
    private final int memoryFileFd;
    private final AtomicBoolean closed = new AtomicBoolean();

    private PinnedArena(
        final long address,
        final long size,
        final long mappedLength,
        final boolean pinned,
        final HugePages hugePages,
        final int partitionSize,
        final int memoryFileFd)
    {
        this.memoryFileFd = memoryFileFd;
        this.address = address;
        this.size = size;
        this.mappedLength = mappedLength;
        this.pinned = pinned;
        this.hugePages = hugePages;
        this.partitions = new ArenaPartitions(address, size, partitionSize);
    }

    /** Map an arena with 1 GiB partitions. */
    public static PinnedArena map(final long size, final PinPolicy pinPolicy, final HugePages hugePages)
    {
        return map(size, pinPolicy, hugePages, DEFAULT_PARTITION_SIZE);
    }

    /**
     * Map an arena.
     *
     * @param size bytes, a positive multiple of {@link #PAGE_SIZE}.
     * @param pinPolicy whether the pages must, may or must not be locked.
     * @param hugePages the huge-page backing to ask for.
     * @param partitionSize a power of two no larger than 1 GiB.
     * @throws MemlockLimitException if pinning is {@link PinPolicy#REQUIRED} and not possible.
     * @throws ArenaException if the mapping fails or an argument is invalid.
     */
    public static PinnedArena map(
        final long size, final PinPolicy pinPolicy, final HugePages hugePages, final int partitionSize)
    {
        return map(size, pinPolicy, hugePages, partitionSize, true, false);
    }

    /**
     * Map an arena shared from an anonymous memory file ({@code memfd_create}) instead of private anonymous memory,
     * so that a same-host transport can hand the file to another process (read-only) and share the pool. The file
     * lives while this arena or a peer maps it; nothing is left on a file system. Arguments as for
     * {@link #map(long, PinPolicy, HugePages, int)}.
     */
    public static PinnedArena mapShared(
        final long size, final PinPolicy pinPolicy, final HugePages hugePages, final int partitionSize)
    {
        return map(size, pinPolicy, hugePages, partitionSize, true, true);
    }

    /** As {@link #map(long, PinPolicy, HugePages, int)}; {@code precheck=false} lets tests reach mlock's failure. */
    static PinnedArena map(
        final long size,
        final PinPolicy pinPolicy,
        final HugePages hugePages,
        final int partitionSize,
        final boolean precheck)
    {
        return map(size, pinPolicy, hugePages, partitionSize, precheck, false);
    }

    private static PinnedArena map(
        final long size,
        final PinPolicy pinPolicy,
        final HugePages hugePages,
        final int partitionSize,
        final boolean precheck,
        final boolean shared)
    {
        if (size <= 0 || size % PAGE_SIZE != 0)
        {
            throw new ArenaException("arena size must be a positive multiple of " + PAGE_SIZE + ": " + size);
        }
        if (pinPolicy == null || hugePages == null)
        {
            throw new ArenaException("pinPolicy and hugePages must not be null");
        }
        if (partitionSize < ArenaPartitions.MIN_PARTITION_SIZE || partitionSize > ArenaPartitions.MAX_PARTITION_SIZE ||
            Integer.bitCount(partitionSize) != 1)
        {
            throw new ArenaException("partitionSize must be a power of two in [" +
                ArenaPartitions.MIN_PARTITION_SIZE + ", " + ArenaPartitions.MAX_PARTITION_SIZE + "]: " + partitionSize);
        }

        boolean pin = pinPolicy != PinPolicy.OFF;
        if (pin && precheck)
        {
            final MemlockLimit limit = MemlockLimit.current();
            if (!limit.allows(size))
            {
                final String message = limit.describeRefusal(size, "RLIMIT_MEMLOCK is smaller than the pool");
                if (pinPolicy == PinPolicy.REQUIRED)
                {
                    throw new MemlockLimitException(message, size, limit.softLimitBytes());
                }
                LOG.warn("continuing with an UNPINNED pool (pin policy BEST_EFFORT): {}", message);
                pin = false;
            }
        }

        final LibC libc = LibC.INSTANCE;
        final MappingCalls calls = MappingBindings.calls();
        final int prot = LibC.PROT_READ | LibC.PROT_WRITE;
        final int flags = shared ? LibC.MAP_SHARED :
            LibC.MAP_PRIVATE | LibC.MAP_ANONYMOUS | (pin ? 0 : LibC.MAP_NORESERVE);
        long mappedLength = size;
        long address = LibC.MAP_FAILED;
        HugePages applied = hugePages;
        int fd = -1;

        if (hugePages == HugePages.EXPLICIT)
        {
            final long hugeLength = (size + HUGE_PAGE_SIZE - 1) & -HUGE_PAGE_SIZE;
            if (shared)
            {
                fd = memoryFile(libc, hugeLength, LibC.MFD_HUGETLB);
                address = fd < 0 ? LibC.MAP_FAILED : calls.mmap(hugeLength, prot, flags, fd, 0);
            }
            else
            {
                // Never MAP_NORESERVE with MAP_HUGETLB: an unreserved huge page missing at fault time is a SIGBUS.
                final int hugeFlags = (flags & ~LibC.MAP_NORESERVE) | LibC.MAP_HUGETLB;
                address = calls.mmap(hugeLength, prot, hugeFlags, -1, 0);
            }
            if (address == LibC.MAP_FAILED)
            {
                final int errno = shared && fd < 0 ? Native.getLastError() : calls.errno();
                if (fd >= 0)
                {
                    libc.close(fd);
                    fd = -1;
                }
                LOG.info("explicit huge pages unavailable for {} ({}, errno {}; see vm.nr_hugepages): " +
                    "falling back to normal pages", ByteSizes.humanReadable(hugeLength), strerror(errno), errno);
                applied = HugePages.NONE;
            }
            else
            {
                mappedLength = hugeLength;
            }
        }
        if (address == LibC.MAP_FAILED)
        {
            if (shared)
            {
                fd = memoryFile(libc, size, 0);
                if (fd < 0)
                {
                    final int errno = Native.getLastError();
                    throw new ArenaException("memfd_create/ftruncate of " + ByteSizes.withExactBytes(size) +
                        " failed: " + strerror(errno) + " (errno " + errno + ")");
                }
            }
            address = calls.mmap(size, prot, flags, fd, 0);
            if (address == LibC.MAP_FAILED)
            {
                final int errno = calls.errno();
                if (fd >= 0)
                {
                    libc.close(fd);
                }
                throw new ArenaException("mmap of " + ByteSizes.withExactBytes(size) + " failed: " +
                    strerror(errno) + " (errno " + errno + ")");
            }
        }

        if (hugePages == HugePages.TRANSPARENT && calls.madvise(address, mappedLength, LibC.MADV_HUGEPAGE) != 0)
        {
            final int errno = calls.errno();
            LOG.info("madvise(MADV_HUGEPAGE) refused ({}, errno {}): transparent huge pages not used",
                strerror(errno), errno);
            applied = HugePages.NONE;
        }

        if (pin && calls.mlock(address, mappedLength) != 0)
        {
            final int errno = calls.errno();
            final MemlockLimit limit = MemlockLimit.current();
            final String message = limit.describeRefusal(
                size, "mlock failed with " + strerror(errno) + " (errno " + errno + ")");
            if (pinPolicy == PinPolicy.REQUIRED)
            {
                calls.munmap(address, mappedLength);
                if (fd >= 0)
                {
                    libc.close(fd);
                }
                throw new MemlockLimitException(message, size, limit.softLimitBytes());
            }
            LOG.warn("continuing with an UNPINNED pool (pin policy BEST_EFFORT): {}", message);
            pin = false;
        }

        LOG.debug("mapped arena of {} at 0x{} pinned={} hugePages={} shared={}",
            ByteSizes.humanReadable(size), Long.toHexString(address), pin, applied, shared);
        return new PinnedArena(address, size, mappedLength, pin, applied, partitionSize, fd);
    }

    /** A memory file of {@code length} bytes; -1 (errno set) when it cannot be made. */
    private static int memoryFile(final LibC libc, final long length, final int extraFlags)
    {
        final int fd = libc.memfd_create("rdmakv-pool", LibC.MFD_CLOEXEC | extraFlags);
        if (fd >= 0 && libc.ftruncate(fd, length) != 0)
        {
            libc.close(fd);
            return -1;
        }
        return fd;
    }

    /** True when the arena is mapped shared from a memory file ({@link #mapShared}). */
    public boolean isShared()
    {
        return memoryFileFd >= 0;
    }

    /** The start address of the mapping (valid until {@link #close()}). */
    public long address()
    {
        return address;
    }

    /** The usable size in bytes (the mapping itself may be rounded up to a huge page). */
    public long size()
    {
        return size;
    }

    /** True if the pages are locked in RAM. */
    public boolean isPinned()
    {
        return pinned;
    }

    /** The huge-page backing actually applied ({@link HugePages#NONE} after a fallback). */
    public HugePages hugePages()
    {
        return hugePages;
    }

    /** The partition views over the arena. */
    public ArenaPartitions partitions()
    {
        return partitions;
    }

    public boolean isClosed()
    {
        return closed.get();
    }

    /** Unlock and unmap; idempotent. */
    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        partitions.detach();
        final LibC libc = LibC.INSTANCE;
        final MappingCalls calls = MappingBindings.calls();
        if (pinned && calls.munlock(address, mappedLength) != 0)
        {
            LOG.warn("munlock failed: errno {}", calls.errno());
        }
        if (calls.munmap(address, mappedLength) != 0)
        {
            LOG.warn("munmap failed: errno {}", calls.errno());
        }
        if (memoryFileFd >= 0)
        {
            libc.close(memoryFileFd);
        }
    }

    @Override
    public String toString()
    {
        return "PinnedArena{size=" + ByteSizes.humanReadable(size) + ", pinned=" + pinned + ", hugePages=" +
            hugePages + ", partitions=" + partitions.partitionCount() + "x" +
            ByteSizes.humanReadable(partitions.partitionSize()) + (closed.get() ? ", closed" : "") + "}";
    }

    private static String strerror(final int errno)
    {
        try
        {
            return LibC.INSTANCE.strerror(errno);
        }
        catch (final RuntimeException ex)
        {
            return "error " + errno;
        }
    }
}
