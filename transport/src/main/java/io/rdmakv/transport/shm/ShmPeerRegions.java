package io.rdmakv.transport.shm;

import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;

/**
 * The peer's regions as one {@link ShmEndpoint} sees them: those mapped here read-only, those to ask the peer for
 * (MAP, with the token to present) and those asked for and not yet answered; and the copy out of a mapped one, checked
 * against the peer's region table. Every method runs under the endpoint's lock, so that a close never unmaps memory a
 * caller is copying from.
 */
final class ShmPeerRegions
{
    private static final Logger LOG = LoggerFactory.getLogger(ShmPeerRegions.class);

    private final UnsafeBuffer regionTable;
    private final Int2ObjectHashMap<PeerRegion> mapped = new Int2ObjectHashMap<>();
    /** Region ids to ask the peer for, with the token to present; the progress thread sends them. */
    private final Int2ObjectHashMap<Long> toAsk = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<Long> asked = new Int2ObjectHashMap<>();

    /** @param regionTable the peer's region table, mapped read-only: one generation word per region id. */
    ShmPeerRegions(final UnsafeBuffer regionTable)
    {
        this.regionTable = regionTable;
    }

    /** The region {@code key} names if it is mapped here, else {@code null}. */
    PeerRegion get(final RemoteKey key)
    {
        return mapped.get(key.nativeKey());
    }

    /** A read waits for the region {@code key} names: ask the peer for it unless asked already. */
    void ask(final RemoteKey key)
    {
        if (!asked.containsKey(key.nativeKey()))
        {
            toAsk.put(key.nativeKey(), Long.valueOf(key.token()));
            asked.put(key.nativeKey(), Long.valueOf(key.token()));
        }
    }

    boolean hasRequests()
    {
        return !toAsk.isEmpty();
    }

    /** Send a MAP for each region to ask for; how many were sent, or -1 when the control socket is closed. */
    int sendRequests(final UnixSeqPacket control)
    {
        int sent = 0;
        for (final Int2ObjectHashMap<Long>.EntryIterator it = toAsk.entrySet().iterator(); it.hasNext(); )
        {
            it.next();
            if (!control.send(ShmControl.map(control.payload(), it.getIntKey(), it.getValue())))
            {
                return -1;
            }
            it.remove();
            sent++;
        }
        return sent;
    }

    /** The token presented when region {@code regionId} was asked for (0 when it was not). */
    long askedToken(final int regionId)
    {
        final Long token = asked.get(regionId);
        return token == null ? 0 : token;
    }

    /** The peer answered for region {@code regionId}; {@code region} is its mapping, {@code null} when refused. */
    void answered(final int regionId, final PeerRegion region)
    {
        asked.remove(regionId);
        if (region != null)
        {
            mapped.put(regionId, region);
        }
    }

    /** Nothing more will be asked (the connection is going down). */
    void clearRequests()
    {
        toAsk.clear();
    }

    /** Unmap every region. */
    void closeAll()
    {
        for (final PeerRegion r : mapped.values())
        {
            r.mapping().close();
        }
        mapped.clear();
    }

    /**
     * The region a MAPPED answer (in {@code control}'s payload, with its descriptor) describes, mapped read-only here;
     * {@code null} when the peer refused or the mapping failed. Takes no lock: {@code token} is the one asked with.
     */
    static PeerRegion mapAnswer(final UnixSeqPacket control, final int regionId, final long token,
        final InetSocketAddress peer)
    {
        final UnsafeBuffer b = control.payload();
        final int o = UnixSeqPacket.payloadOffset();
        if (b.getInt(o + 8) != ShmControl.MAPPED_OK || control.receivedFdCount() != 1)
        {
            control.closeReceivedFds();
            return null;
        }
        final long generation = b.getLong(o + 12);
        final long fileOffset = b.getLong(o + 20);
        final long base = b.getLong(o + 28);
        final long length = b.getLong(o + 36);
        try
        {
            final SharedMapping m = SharedMapping.mapReadOnly(control.receivedFd(0), fileOffset, length);
            return new PeerRegion(regionId, token, generation, base, length, m);
        }
        catch (final RuntimeException e)
        {
            LOG.warn("shm: cannot map region {} of {}: {}", regionId, peer, e.getMessage());
            return null;
        }
    }

    /** Copy a read out of the peer's mapped region, checking token, bounds and the registration. */
    TransportStatus copy(final PeerRegion region, final long remoteAddress, final long token, final int length,
        final MutableDirectBuffer destination, final int destinationOffset)
    {
        if (region.token() != token)
        {
            return TransportStatus.INVALID_RKEY;
        }
        if (!region.covers(remoteAddress, length))
        {
            return TransportStatus.OUT_OF_BOUNDS;
        }
        final int word = region.regionId() * 8;
        if (regionTable.getLongVolatile(word) != region.generation())
        {
            return TransportStatus.INVALID_RKEY;
        }
        final long source = region.mapping().address() + (remoteAddress - region.base());
        UnsafeApi.copyMemory(null, source, destination.byteArray(), destination.addressOffset() + destinationOffset,
            length);
        // A region closed while we copied: its bytes may already belong to something else.
        return regionTable.getLongVolatile(word) == region.generation() ? TransportStatus.OK :
            TransportStatus.INVALID_RKEY;
    }
}
