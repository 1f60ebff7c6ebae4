package io.rdmakv.transport.shm;

import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.base.AbstractMemoryRegion;

/**
 * A registered range of a shared memory file. A peer that presents its remote key (region id and token) gets a
 * read-only descriptor of the file and maps the range; the region's word in the domain's region table says whether
 * the registration still stands, and readers check it around every copy.
 */
final class ShmMemoryRegion extends AbstractMemoryRegion
{
    private final ShmMemoryDomain domain;
    private final int regionId;
    private final long generation;
    private final long fileOffset;
    private final int readOnlyFd;

    ShmMemoryRegion(final ShmMemoryDomain domain, final int regionId, final long generation, final long address,
        final long length, final long fileOffset, final int readOnlyFd, final long token)
    {
        super(new RemoteKey(RemoteKey.TRANSPORT_SHM, regionId, address, length, token));
        this.domain = domain;
        this.regionId = regionId;
        this.generation = generation;
        this.fileOffset = fileOffset;
        this.readOnlyFd = readOnlyFd;
    }

    int regionId()
    {
        return regionId;
    }

    long generation()
    {
        return generation;
    }

    long fileOffset()
    {
        return fileOffset;
    }

    /** A read-only descriptor of the backing memory file (owned by the region; send a copy, never close it). */
    int readOnlyFd()
    {
        return readOnlyFd;
    }

    long token()
    {
        return remoteKey().token();
    }

    /** Deregister: readers see the region table word change and refuse the read; the memory itself stays mapped. */
    @Override
    public void close()
    {
        if (claimClose())
        {
            domain.remove(this, true);
            LibC.close(readOnlyFd);
        }
    }

    /**
     * The transport is closing (as when the process dies): drop the registration without clearing its table word,
     * so a peer learns of it from its connection's end (PEER_FAILED), as it would of a crash, not from a refused
     * read.
     */
    void release()
    {
        if (claimClose())
        {
            domain.remove(this, false);
            LibC.close(readOnlyFd);
        }
    }
}
