package io.rdmakv.transport.verbs;

import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryDomain;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.base.AbstractMemoryRegion;
import io.rdmakv.transport.verbs.ffi.LibIbverbs;
import com.sun.jna.Pointer;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.*;

/**
 * Registers memory with the device's protection domain: one {@code ibv_reg_mr} per region, with LOCAL_WRITE and
 * REMOTE_READ at most, and MW_BIND when asked for {@link MemoryAccess#BIND_WINDOWS} on a device with windows. Remote
 * write is never granted, whatever is asked. {@link #registrationCount()} counts every
 * {@code ibv_reg_mr} this transport makes, including the per-endpoint rings registered when a connection is set up,
 * so a flat counter across a workload proves the data path never registers.
 */
final class VerbsMemoryDomain implements MemoryDomain
{
    private final VerbsDevice device;
    private static final int ENOMEM = 12;

    private final AtomicLong registrations = new AtomicLong();
    private final AtomicLong registeredBytes = new AtomicLong();
    private final List<Region> regions = new ArrayList<>();
    private boolean closed;

    VerbsMemoryDomain(final VerbsDevice device)
    {
        this.device = device;
    }

    @Override
    public MemoryRegion register(final long address, final long length, final Set<MemoryAccess> access)
    {
        if (address == 0 || length <= 0)
        {
            throw new TransportException("cannot register address 0x" + Long.toHexString(address) + " length " + length);
        }
        int flags = 0;
        if (access.contains(MemoryAccess.LOCAL_WRITE))
        {
            flags |= ACCESS_LOCAL_WRITE;
        }
        if (access.contains(MemoryAccess.REMOTE_READ))
        {
            flags |= ACCESS_REMOTE_READ;
        }
        if (access.contains(MemoryAccess.BIND_WINDOWS) && device.supportsWindows())
        {
            flags |= ACCESS_MW_BIND;
        }
        final long mr = registerRaw(address, length, flags, "region",
            "the memlock limit is too low: raise it (ulimit -l, systemd LimitMEMLOCK, docker --ulimit memlock=-1)");
        final Region region = new Region(address, length, (flags & ACCESS_MW_BIND) != 0, mr);
        synchronized (this)
        {
            if (closed)
            {
                deregisterRaw(region.mr, length);
                throw new TransportException("memory domain is closed");
            }
            regions.add(region);
        }
        return region;
    }

    /**
     * {@code ibv_reg_mr}, counted. Never asks for REMOTE_WRITE.
     *
     * @param what          what is registered, for the message.
     * @param memlockAdvice appended to the message when the kernel says ENOMEM: registered memory is pinned and
     *                      counts against {@code RLIMIT_MEMLOCK}, so that is the usual cause.
     * @return the {@code struct ibv_mr *}; give it back with {@link #deregisterRaw}.
     */
    long registerRaw(final long address, final long length, final int flags, final String what,
        final String memlockAdvice)
    {
        if ((flags & ACCESS_REMOTE_WRITE) != 0)
        {
            throw new IllegalArgumentException("remote write is never granted");
        }
        final long mr = LibIbverbs.ibv_reg_mr(device.pd, address, length, flags);
        if (mr == 0)
        {
            final int errno = LibIbverbs.errno();
            throw new TransportException("ibv_reg_mr of " + what + " (" + length + " bytes at 0x" +
                Long.toHexString(address) + ") failed: " + LibIbverbs.describeErrno(errno) +
                (errno == ENOMEM ? "; " + memlockAdvice : ""));
        }
        registrations.incrementAndGet();
        registeredBytes.addAndGet(length);
        return mr;
    }

    /** {@code ibv_dereg_mr} of a region of {@code length} bytes made by {@link #registerRaw}. */
    void deregisterRaw(final long mr, final long length)
    {
        LibIbverbs.ibv_dereg_mr(mr);
        registeredBytes.addAndGet(-length);
    }

    /** Bytes registered (and so pinned) through this domain now: the pool, every worker's buffers. */
    long registeredBytes()
    {
        return registeredBytes.get();
    }

    static int lkey(final long mr)
    {
        return new Pointer(mr).getInt(MR_LKEY);
    }

    static int rkey(final long mr)
    {
        return new Pointer(mr).getInt(MR_RKEY);
    }

    @Override
    public long registrationCount()
    {
        return registrations.get();
    }

    synchronized void close()
    {
        closed = true;
        for (final Region r : new ArrayList<>(regions))
        {
            r.close();
        }
        regions.clear();
    }

    /**
     * The {@code struct ibv_mr *} of a region of this domain that windows may be bound over.
     *
     * @throws TransportException if the region is another domain's, closed, or registered without
     *                            {@link MemoryAccess#BIND_WINDOWS}.
     */
    synchronized long windowableMr(final MemoryRegion region)
    {
        if (!(region instanceof Region r) || !regions.contains(r))
        {
            throw new TransportException("not a live region of this verbs transport: " + region);
        }
        if (!r.windows)
        {
            throw new TransportException(region + " was not registered with BIND_WINDOWS");
        }
        return r.mr;
    }

    private final class Region extends AbstractMemoryRegion
    {
        private final long mr;
        private final boolean windows;

        Region(final long address, final long length, final boolean windows, final long mr)
        {
            super(new RemoteKey(RemoteKey.TRANSPORT_VERBS, rkey(mr), address, length, 0));
            this.mr = mr;
            this.windows = windows;
        }

        @Override
        public void close()
        {
            synchronized (VerbsMemoryDomain.this)
            {
                if (!claimClose())
                {
                    return;
                }
                regions.remove(this);
                deregisterRaw(mr, length());
            }
        }

        @Override
        public String toString()
        {
            return "VerbsMemoryRegion{" + remoteKey() + '}';
        }
    }
}
