package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rdmakv.transport.TransportStatus;

import java.util.concurrent.atomic.AtomicLong;

/**
 * EMULATED one-sided read (like UCX's software RMA): the target's transport answers a read request on its Netty I/O
 * thread, below any application code and without the target's worker. Unlike UCX it trusts nothing the peer says:
 * the region id must name a live registration with remote read access, the token must match, and
 * {@code [address, address + length)} must lie inside the region (overflow-safe). Refusals are answered with a status
 * and the connection keeps serving.
 */
final class TcpEmulatedReadResponder
{
    private final TcpMemoryDomain domain;
    private final boolean enabled;
    private final int maxReadBytes;
    private final AtomicLong served = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    TcpEmulatedReadResponder(final TcpMemoryDomain domain, final boolean enabled, final int maxReadBytes)
    {
        this.domain = domain;
        this.enabled = enabled;
        this.maxReadBytes = maxReadBytes;
    }

    /** Build the response frame for one request. */
    ByteBuf answer(
        final ByteBufAllocator alloc, final long correlationId, final int regionId, final int length,
        final long token, final long address)
    {
        final TransportStatus status = check(regionId, length, token, address);
        if (status != TransportStatus.OK)
        {
            refused.incrementAndGet();
            return TcpFrames.readResponseFrame(alloc, correlationId, status.code(), 0);
        }
        final TcpMemoryRegion region = domain.lookup(regionId);
        if (region == null || !region.acquire())
        {
            refused.incrementAndGet();
            return TcpFrames.readResponseFrame(alloc, correlationId, TransportStatus.INVALID_RKEY.code(), 0);
        }
        try
        {
            final ByteBuf frame = TcpFrames.readResponseFrame(alloc, correlationId, TransportStatus.OK.code(), length);
            TcpCopy.appendNative(address, frame, length);
            served.incrementAndGet();
            return frame;
        }
        finally
        {
            region.release();
        }
    }

    private TransportStatus check(final int regionId, final int length, final long token, final long address)
    {
        if (!enabled)
        {
            return TransportStatus.ACCESS_DENIED;
        }
        final TcpMemoryRegion region = domain.lookup(regionId);
        if (region == null || region.isClosed() || !region.tokenMatches(token))
        {
            return TransportStatus.INVALID_RKEY;
        }
        if (!region.allowsRemoteRead())
        {
            return TransportStatus.ACCESS_DENIED;
        }
        if (length > maxReadBytes)
        {
            return TransportStatus.MESSAGE_TOO_LARGE;
        }
        if (length < 0 || !region.covers(address, length))
        {
            return TransportStatus.OUT_OF_BOUNDS;
        }
        return TransportStatus.OK;
    }

    long served()
    {
        return served.get();
    }

    long refused()
    {
        return refused.get();
    }
}
