package io.rdmakv.transport.shm;

import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryDomain;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.libc.LibCLayout;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Registers ranges of shared memory files for one-sided reads by peers on this host. Only memory mapped shared from
 * a {@code memfd} can be registered for {@code REMOTE_READ} (memory for local use only registers as it is) (a {@link SharedMapping}, or a pool arena created shared): that is what another
 * process can map. The registration finds the file behind the address in {@code /proc/self/maps}, opens a read-only
 * descriptor of it, and publishes a generation word in the region table (a small shared file every peer maps
 * read-only) that readers check around each copy:
 * <pre>
 *   region table (8 B per region id):  0 = not registered | generation (odd counter, never reused)
 * </pre>
 * Registration is slow (a file scan) and happens once per region, never on the data path.
 */
public final class ShmMemoryDomain implements MemoryDomain, AutoCloseable
{
    /** Region ids 1..MAX_REGIONS-1. */
    static final int MAX_REGIONS = 8192;

    private final SecureRandom random = new SecureRandom();
    private final AtomicLong registrations = new AtomicLong();
    private final SharedMapping regionTable = SharedMapping.create("rdmakv-shm-regions", MAX_REGIONS * 8L);
    private final UnsafeBuffer table = regionTable.buffer();
    private final int regionTableReadOnlyFd = reopenReadOnly(regionTable.fd());
    private final Int2ObjectHashMap<ShmMemoryRegion> regions = new Int2ObjectHashMap<>();
    private int nextRegionId = 1;
    private long nextGeneration = 1;

    @Override
    public MemoryRegion register(final long address, final long length, final Set<MemoryAccess> access)
    {
        if (address == 0 || length <= 0 || address + length < address)
        {
            throw new TransportException("invalid region: " + length + " bytes at 0x" + Long.toHexString(address));
        }
        if (access == null)
        {
            throw new TransportException("access set must not be null");
        }
        if (!access.contains(MemoryAccess.REMOTE_READ))
        {
            // Local use only (read destinations): no peer ever maps it, so any memory will do.
            registrations.incrementAndGet();
            return new LocalRegion(address, length);
        }
        final Backing backing = backingOf(address, length);
        synchronized (regions)
        {
            if (nextRegionId >= MAX_REGIONS)
            {
                throw new TransportException("shm: " + (MAX_REGIONS - 1) + " regions registered over this domain's life");
            }
            long token;
            do
            {
                token = random.nextLong();
            }
            while (token == 0);
            final int id = nextRegionId++;
            final long generation = nextGeneration;
            nextGeneration += 2;
            final ShmMemoryRegion region = new ShmMemoryRegion(this, id, generation, address, length,
                backing.fileOffset, backing.readOnlyFd, token);
            regions.put(id, region);
            table.putLongVolatile(id * 8, generation);
            registrations.incrementAndGet();
            return region;
        }
    }

    @Override
    public long registrationCount()
    {
        return registrations.get();
    }

    /** The registered region with {@code regionId}, or null. */
    ShmMemoryRegion lookup(final int regionId)
    {
        synchronized (regions)
        {
            return regions.get(regionId);
        }
    }

    /** A read-only descriptor of the region table, for peers (owned by the domain). */
    int regionTableReadOnlyFd()
    {
        return regionTableReadOnlyFd;
    }

    void remove(final ShmMemoryRegion region, final boolean clearWord)
    {
        synchronized (regions)
        {
            if (clearWord)
            {
                table.putLongVolatile(region.regionId() * 8, 0);
            }
            regions.remove(region.regionId());
        }
    }

    @Override
    public void close()
    {
        final List<ShmMemoryRegion> all;
        synchronized (regions)
        {
            all = List.copyOf(regions.values());
        }
        all.forEach(ShmMemoryRegion::release);
        LibC.close(regionTableReadOnlyFd);
        regionTable.close();
    }

    /** A registration without remote access: nothing to share, its key names no region (id 0). */
    private record LocalRegion(long address, long length) implements MemoryRegion
    {
        @Override
        public io.rdmakv.transport.RemoteKey remoteKey()
        {
            return new io.rdmakv.transport.RemoteKey(io.rdmakv.transport.RemoteKey.TRANSPORT_SHM, 0, address, length, 0);
        }

        @Override
        public void close()
        {
        }
    }

    private record Backing(long fileOffset, int readOnlyFd)
    {
    }

    /** The memory file behind {@code [address, address + length)} and a read-only descriptor of it. */
    private static Backing backingOf(final long address, final long length)
    {
        final List<String> maps;
        try
        {
            maps = Files.readAllLines(Path.of("/proc/self/maps"));
        }
        catch (final IOException e)
        {
            throw new TransportException("shm: cannot read /proc/self/maps: " + e.getMessage(), e);
        }
        for (final String line : maps)
        {
            final String[] f = line.trim().split("\\s+", 6);
            final int dash = f[0].indexOf('-');
            final long start = Long.parseUnsignedLong(f[0].substring(0, dash), 16);
            final long end = Long.parseUnsignedLong(f[0].substring(dash + 1), 16);
            if (address < start || address >= end)
            {
                continue;
            }
            final String path = f.length == 6 ? f[5] : "";
            if (f[1].charAt(3) != 's' || !path.startsWith("/memfd:"))
            {
                throw new TransportException("shm registers only memory mapped shared from a memory file " +
                    "(SharedMapping.create, or a pool arena created shared); 0x" + Long.toHexString(address) +
                    " is in a " + (f[1].charAt(3) == 's' ? "shared" : "private") + " mapping of '" + path + "'");
            }
            if (address + length > end)
            {
                throw new TransportException("shm: region of " + length + " bytes at 0x" + Long.toHexString(address) +
                    " runs past the end of its memory file mapping (0x" + Long.toHexString(end) + ")");
            }
            final long inode = Long.parseLong(f[4]);
            final long fileOffset = Long.parseUnsignedLong(f[2], 16) + (address - start);
            return new Backing(fileOffset, reopenReadOnly(descriptorOf(inode, path)));
        }
        throw new TransportException("shm: 0x" + Long.toHexString(address) + " is not mapped");
    }

    /** An open descriptor of this process for the memory file with {@code inode}. */
    private static int descriptorOf(final long inode, final String path)
    {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd")))
        {
            for (final Path fd : fds)
            {
                try
                {
                    if (Files.readSymbolicLink(fd).toString().startsWith("/memfd:") &&
                        ((Number)Files.getAttribute(fd, "unix:ino")).longValue() == inode)
                    {
                        return Integer.parseInt(fd.getFileName().toString());
                    }
                }
                catch (final IOException | UnsupportedOperationException | NumberFormatException ignore)
                {
                    // a descriptor closed meanwhile, or not a file: not ours
                }
            }
        }
        catch (final IOException e)
        {
            throw new TransportException("shm: cannot list /proc/self/fd: " + e.getMessage(), e);
        }
        throw new TransportException("shm: the memory file '" + path + "' is mapped but no descriptor of it is " +
            "open in this process; keep it open while the region is registered");
    }

    private static int reopenReadOnly(final int fd)
    {
        final int ro = LibC.open("/proc/self/fd/" + fd, LibCLayout.O_RDONLY | LibCLayout.O_CLOEXEC);
        if (ro < 0)
        {
            throw new TransportException("shm: cannot reopen descriptor " + fd + " read-only, errno " + LibC.errno());
        }
        return ro;
    }
}
