package io.rdmakv.transport.base;

import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.RemoteKey;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every transport's registered region shares: its range and remote key, and a close that happens once however
 * many threads call it ({@link #claimClose()}). A transport adds what the registration is on its side (a region table
 * entry, a memory file's descriptor, a verbs memory region) and what closing releases.
 */
public abstract class AbstractMemoryRegion implements MemoryRegion
{
    private final RemoteKey remoteKey;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** @param remoteKey the region's key: its transport, native key, base address, length and token. */
    protected AbstractMemoryRegion(final RemoteKey remoteKey)
    {
        this.remoteKey = remoteKey;
    }

    @Override
    public final long address()
    {
        return remoteKey.baseAddress();
    }

    @Override
    public final long length()
    {
        return remoteKey.length();
    }

    @Override
    public final RemoteKey remoteKey()
    {
        return remoteKey;
    }

    /** The one close: true for the first caller, which releases the registration. */
    protected final boolean claimClose()
    {
        return closed.compareAndSet(false, true);
    }

    /** Closed (or closing): no new read may start on it. */
    public final boolean isClosed()
    {
        return closed.get();
    }
}
