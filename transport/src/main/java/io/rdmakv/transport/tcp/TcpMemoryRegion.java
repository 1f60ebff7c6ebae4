package io.rdmakv.transport.tcp;

import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.base.AbstractMemoryRegion;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One entry of the {@link TcpMemoryDomain}'s region table. Emulated reads {@link #acquire()} it around the copy so
 * that {@link #close()} returns only when no read is still copying out of the memory (the owner may unmap it next).
 */
public final class TcpMemoryRegion extends AbstractMemoryRegion
{
    private final TcpMemoryDomain domain;
    private final int regionId;
    private final long token;
    private final boolean remoteRead;
    private final AtomicInteger readers = new AtomicInteger();

    TcpMemoryRegion(
        final TcpMemoryDomain domain, final int regionId, final long address, final long length, final long token,
        final Set<MemoryAccess> access)
    {
        super(new RemoteKey(RemoteKey.TRANSPORT_TCP, regionId, address, length, token));
        this.domain = domain;
        this.regionId = regionId;
        this.token = token;
        this.remoteRead = access.contains(MemoryAccess.REMOTE_READ);
    }

    int regionId()
    {
        return regionId;
    }

    boolean tokenMatches(final long candidate)
    {
        return token == candidate;
    }

    boolean allowsRemoteRead()
    {
        return remoteRead;
    }

    /** Overflow-safe: true when {@code [readAddress, readAddress + bytes)} lies inside the region. */
    boolean covers(final long readAddress, final long bytes)
    {
        final long address = address();
        return bytes >= 0 && readAddress >= address && readAddress - address <= length() - bytes;
    }

    /** Pin the region for one copy; false when it is closed. Pair with {@link #release()}. */
    boolean acquire()
    {
        readers.incrementAndGet();
        if (isClosed())
        {
            readers.decrementAndGet();
            return false;
        }
        return true;
    }

    void release()
    {
        readers.decrementAndGet();
    }

    /** Deregister: later reads are refused; waits for copies in progress (they are short) to finish. */
    @Override
    public void close()
    {
        if (!claimClose())
        {
            return;
        }
        domain.remove(this);
        while (readers.get() != 0)
        {
            Thread.onSpinWait();
        }
    }

    @Override
    public String toString()
    {
        return "TcpMemoryRegion{id=" + regionId + ", address=0x" + Long.toHexString(address()) + ", length=" +
            length() + ", remoteRead=" + remoteRead + ", closed=" + isClosed() + '}';
    }
}
