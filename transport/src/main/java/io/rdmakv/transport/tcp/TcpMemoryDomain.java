package io.rdmakv.transport.tcp;

import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryDomain;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.TransportException;
import org.agrona.collections.Int2ObjectHashMap;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The TCP memory domain: a table of registered regions, each with a region id and a random secret token
 * ({@link SecureRandom}) packed into its {@link io.rdmakv.transport.RemoteKey}. Emulated reads look regions up from
 * Netty I/O threads: the table is copy-on-write, so a lookup takes no lock and allocates nothing; registration is
 * rare (start-up) and pays for the copy.
 */
public final class TcpMemoryDomain implements MemoryDomain
{
    private final SecureRandom random = new SecureRandom();
    private final AtomicLong registrations = new AtomicLong();
    private final Object lock = new Object();
    private int nextRegionId = 1;
    private volatile Int2ObjectHashMap<TcpMemoryRegion> regions = new Int2ObjectHashMap<>();

    @Override
    public MemoryRegion register(final long address, final long length, final Set<MemoryAccess> access)
    {
        if (address == 0)
        {
            throw new TransportException("cannot register address 0");
        }
        if (length <= 0 || address + length < address)
        {
            throw new TransportException("invalid region length " + length + " at 0x" + Long.toHexString(address));
        }
        if (access == null)
        {
            throw new TransportException("access set must not be null");
        }
        synchronized (lock)
        {
            long token;
            do
            {
                token = random.nextLong();
            }
            while (token == 0);
            final TcpMemoryRegion region = new TcpMemoryRegion(this, nextRegionId++, address, length, token, access);
            final Int2ObjectHashMap<TcpMemoryRegion> copy = new Int2ObjectHashMap<>(regions);
            copy.put(region.regionId(), region);
            regions = copy;
            registrations.incrementAndGet();
            return region;
        }
    }

    @Override
    public long registrationCount()
    {
        return registrations.get();
    }

    /** Lock-free lookup for the emulated read path; {@code null} when unknown or deregistered. */
    TcpMemoryRegion lookup(final int regionId)
    {
        return regions.get(regionId);
    }

    /** Regions currently registered. */
    public int liveRegions()
    {
        return regions.size();
    }

    void remove(final TcpMemoryRegion region)
    {
        synchronized (lock)
        {
            final Int2ObjectHashMap<TcpMemoryRegion> copy = new Int2ObjectHashMap<>(regions);
            copy.remove(region.regionId());
            regions = copy;
        }
    }

    /** Deregister everything (transport close). */
    void closeAll()
    {
        final List<TcpMemoryRegion> all = new ArrayList<>(regions.values());
        for (final TcpMemoryRegion r : all)
        {
            r.close();
        }
    }
}
