package io.rdmakv.transport.shm;

import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.base.AbstractEndpoint;
import io.rdmakv.transport.base.EndpointLifecycle;
import io.rdmakv.transport.base.OperationWindow;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * One shm connection over the shared {@link AbstractEndpoint} (argument checks, the operation window: state, credits,
 * pending queue, reads waiting for a mapping in its in-flight table, deadlines): sends are records in the outbound ring of the connection's shared file, received messages are
 * read out of the inbound ring in place, and a one-sided read is a copy out of the peer's registered memory file,
 * mapped read-only into this process after the peer checked the remote key's token.
 * <pre>
 *   send (any thread):  admit (connected? credits and pending full? -> BACK_PRESSURED)
 *                       ring has room and nothing waits -> record written; no handler: done on return,
 *                       else completion queued
 *                       else -> bytes copied into a pending operation, written in order as the peer reads
 *   read (any thread):  region mapped here -> region-table word == generation ? copy : INVALID_RKEY,
 *                       word checked again after the copy (a region closed meanwhile fails the read)
 *                       not mapped yet -> waits for MAPPED from the peer (the progress thread asks with MAP)
 *   readImmediate:      region mapped here -> the same checks and copy, the status returned to the caller
 *   (any thread)        (no operation, no completion, no wake-up); not mapped yet -> null (post it with read)
 *   progress thread:    inbound ring -> handler.onMessage in place; control socket (MAP, MAPPED, end of file);
 *                       pending sends -> ring; completions -> handlers; deadlines
 * </pre>
 * Everything but the ring reads and the handler calls runs under the window's lock, so that a close never unmaps
 * memory a caller is copying from. Completed operations wait in {@code done} for the progress thread.
 */
final class ShmEndpoint extends AbstractEndpoint<ShmOperation>
{
    private static final Logger LOG = LoggerFactory.getLogger(ShmEndpoint.class);
    static final int MESSAGE_TYPE = 1;
    private static final int MAX_MESSAGES_PER_CYCLE = 64;

    private final ShmWorker worker;
    private final UnixSeqPacket control;
    private final ShmRings rings;
    private final SharedMapping peerRegionTable;
    private final int peerEventFd;
    private final UnsafeBuffer regionTable;
    private final InetSocketAddress remoteAddress;
    private final int maxSendBytes;
    private final int maxReadBytes;

    private final Object lock;
    /** Completed operations (taken out of the window) waiting for the progress thread to deliver them. */
    private final ArrayDeque<ShmOperation> done = new ArrayDeque<>();
    private final Int2ObjectHashMap<PeerRegion> peerRegions = new Int2ObjectHashMap<>();
    /** Region ids to ask the peer for (with the token to present), progress thread sends them. */
    private final Int2ObjectHashMap<Long> mapRequests = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<Long> mapAsked = new Int2ObjectHashMap<>();

    private final RingBufferReader reader = new RingBufferReader();
    private final ArrayList<ShmOperation> completing = new ArrayList<>();
    private final ArrayList<ShmOperation> mappedNow = new ArrayList<>();

    ShmEndpoint(final ShmWorker worker, final EndpointHandler handler, final UnixSeqPacket control,
        final ShmRings rings, final SharedMapping peerRegionTable, final int peerEventFd,
        final InetSocketAddress remoteAddress)
    {
        super(newWindow(worker.config()), handler, RemoteKey.TRANSPORT_SHM, worker);
        this.lock = window.lock();
        this.peerEventFd = peerEventFd;
        this.worker = worker;
        this.control = control;
        this.rings = rings;
        this.peerRegionTable = peerRegionTable;
        this.regionTable = peerRegionTable.buffer();
        this.remoteAddress = remoteAddress;
        this.maxSendBytes = worker.maxSendBytes();
        this.maxReadBytes = worker.maxReadBytes();
        markConnected(); // the handshake is over when an endpoint is made
    }

    private static OperationWindow<ShmOperation> newWindow(final TransportConfig config)
    {
        return new OperationWindow<>(ShmOperation::new, config.maxInflightPerEndpoint(),
            config.maxPendingPerEndpoint(), config.operationTimeout().toNanos(), SystemNanoClock.INSTANCE);
    }

    @Override
    protected int maxSendBytes()
    {
        return maxSendBytes;
    }

    @Override
    protected int maxReadBytes()
    {
        return maxReadBytes;
    }

    // ---------------------------------------------------------------- operations (any thread)

    @Override
    protected long doPostSend(final DirectBuffer buffer, final int offset, final int length,
        final CompletionHandler handler)
    {
        final long id;
        synchronized (lock)
        {
            final long refused = window.admitLocked(lifecycle);
            if (refused < 0)
            {
                return refused;
            }
            if (handler == null && window.mayPostLocked() &&
                rings.outbound().write(MESSAGE_TYPE, buffer, offset, length))
            {
                // Nobody waits for this send's completion: it is complete on return, and the progress thread is
                // neither handed an operation nor woken for it.
                rings.wakePeerIfParked(peerEventFd);
                return window.nextRequestIdLocked();
            }
            final ShmOperation op = window.acquireLocked(handler);
            op.isRead = false;
            if (window.mayPostLocked() && rings.outbound().write(MESSAGE_TYPE, buffer, offset, length))
            {
                window.credits().take(op);
                op.status(TransportStatus.OK);
                done.addLast(op);
                rings.wakePeerIfParked(peerEventFd);
            }
            else
            {
                op.payload.putBytes(0, buffer, offset, length);
                op.length = length;
                window.pending().add(op);
            }
            id = op.requestId();
        }
        worker.wake(); // the completion (or the pending send) is the progress thread's to deliver
        return id;
    }

    @Override
    protected long doPostRead(final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
    {
        final long id;
        synchronized (lock)
        {
            final long refused = window.admitLocked(lifecycle);
            if (refused < 0)
            {
                return refused;
            }
            final ShmOperation op = window.acquireLocked(handler);
            op.isRead = true;
            op.remoteAddress = remoteAddress;
            op.remoteKey = remoteKey;
            op.length = length;
            op.destination = destination;
            op.destinationOffset = destinationOffset;
            window.credits().take(op);
            final PeerRegion region = peerRegions.get(remoteKey.nativeKey());
            if (region != null)
            {
                op.status(copy(region, op));
                done.addLast(op);
            }
            else
            {
                window.inflight().track(op); // waits in the in-flight table for MAPPED
                if (!mapAsked.containsKey(remoteKey.nativeKey()))
                {
                    mapRequests.put(remoteKey.nativeKey(), Long.valueOf(remoteKey.token()));
                    mapAsked.put(remoteKey.nativeKey(), Long.valueOf(remoteKey.token()));
                }
            }
            id = op.requestId();
        }
        worker.wake();
        return id;
    }

    /**
     * The read done on the calling thread when the region is mapped here: the same checks and copy as a posted read
     * ({@link #copy}), under the same lock (a close never unmaps memory being copied), but no operation, no credit, no
     * completion queued and no wake-up of the progress thread.
     */
    @Override
    public TransportStatus readImmediate(final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset)
    {
        final TransportStatus invalid = checkRead(remoteAddress, remoteKey, length, destination, destinationOffset);
        if (invalid != null)
        {
            return invalid;
        }
        synchronized (lock)
        {
            final long refused = lifecycle.refusalSentinel();
            if (refused < 0)
            {
                return TransportStatus.fromSentinel(refused);
            }
            final PeerRegion region = peerRegions.get(remoteKey.nativeKey());
            return region == null ? null :
                copy(region, remoteAddress, remoteKey.token(), length, destination, destinationOffset);
        }
    }

    /** Under lock: copy a posted read out of the peer's mapped region. */
    private TransportStatus copy(final PeerRegion region, final ShmOperation op)
    {
        return copy(region, op.remoteAddress, op.remoteKey.token(), op.length, op.destination, op.destinationOffset);
    }

    /** Under lock: copy a read out of the peer's mapped region, checking token, bounds and the registration. */
    private TransportStatus copy(final PeerRegion region, final long remoteAddress, final long token, final int length,
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

    @Override
    public InetSocketAddress remoteAddress()
    {
        return remoteAddress;
    }

    /** Close: outstanding operations complete with CLOSED on the progress thread; the peer sees end of file. */
    @Override
    public void close()
    {
        if (!requestClose())
        {
            return;
        }
        synchronized (lock)
        {
            goDown(TransportStatus.CLOSED, "closed locally");
        }
        worker.wake();
    }

    // ---------------------------------------------------------------- progress thread

    /** One progress step; returns the work done. Once it returns -1 the worker forgets the endpoint. */
    int doWork(final long nowNanos, final boolean pollControl, final ShmMemoryDomain localDomain)
    {
        int work = 0;
        if (!lifecycle.isClosing())
        {
            reader.count = 0;
            work += rings.inbound().read(reader, MAX_MESSAGES_PER_CYCLE);
        }
        if (pollControl || hasMapRequests())
        {
            work += pollControl(localDomain);
        }
        work += promotePending();
        work += expire(nowNanos);
        work += deliverCompletions();
        if (lifecycle.state() == EndpointLifecycle.State.CLOSED)
        {
            return -1;
        }
        synchronized (lock)
        {
            if (!lifecycle.isClosing() || window.outstanding() != 0 || window.inflight().size() != 0 ||
                !done.isEmpty())
            {
                return work;
            }
        }
        return finishClose() ? work + 1 : -1;
    }

    private boolean hasMapRequests()
    {
        synchronized (lock)
        {
            return !mapRequests.isEmpty() || window.inflight().size() > 0;
        }
    }

    /** Send MAP requests, answer the peer's, take MAPPED answers, notice end of file. */
    private int pollControl(final ShmMemoryDomain localDomain)
    {
        int work = 0;
        synchronized (lock)
        {
            if (lifecycle.isClosing())
            {
                return 0;
            }
            for (final Int2ObjectHashMap<Long>.EntryIterator it = mapRequests.entrySet().iterator(); it.hasNext(); )
            {
                it.next();
                final int len = ShmControl.map(control.payload(), it.getIntKey(), it.getValue());
                if (!control.send(len))
                {
                    goDown(TransportStatus.PEER_FAILED, "control socket closed");
                    return 1;
                }
                it.remove();
                work++;
            }
        }
        for (int i = 0; i < 16; i++)
        {
            final int n = control.receive();
            if (n == UnixSeqPacket.WOULD_BLOCK)
            {
                break;
            }
            work++;
            if (n == UnixSeqPacket.END_OF_STREAM)
            {
                // The peer is gone: deliver what it wrote before it went, then fail the rest.
                reader.count = 0;
                rings.inbound().read(reader, Integer.MAX_VALUE);
                synchronized (lock)
                {
                    goDown(TransportStatus.PEER_FAILED, "peer closed the connection or exited");
                }
                break;
            }
            final int type = ShmControl.type(control.payload(), n);
            if (type == ShmControl.MAP && n >= ShmControl.MAP_LENGTH)
            {
                control.closeReceivedFds();
                answerMap(localDomain);
            }
            else if (type == ShmControl.MAPPED && n >= ShmControl.MAPPED_LENGTH)
            {
                onMapped();
            }
            else
            {
                control.closeReceivedFds();
                LOG.warn("shm: unexpected control message (type {}, {} bytes) from {}: connection closed", type, n,
                    remoteAddress);
                synchronized (lock)
                {
                    goDown(TransportStatus.TRANSPORT_ERROR, "malformed control message");
                }
                break;
            }
        }
        return work;
    }

    /** The peer asks for one of our regions: check its token, send a read-only descriptor. */
    private void answerMap(final ShmMemoryDomain localDomain)
    {
        final UnsafeBuffer b = control.payload();
        final int o = UnixSeqPacket.payloadOffset();
        final int regionId = b.getInt(o + 4);
        final long token = b.getLong(o + 8);
        final ShmMemoryRegion region = localDomain.lookup(regionId);
        final int status = region == null ? ShmControl.MAPPED_UNKNOWN_REGION :
            region.token() != token ? ShmControl.MAPPED_BAD_TOKEN : ShmControl.MAPPED_OK;
        final int len = ShmControl.mapped(b, regionId, status, status == ShmControl.MAPPED_OK ? region : null);
        final boolean sent = status == ShmControl.MAPPED_OK ? control.send(len, region.readOnlyFd()) :
            control.send(len);
        if (!sent)
        {
            synchronized (lock)
            {
                goDown(TransportStatus.PEER_FAILED, "control socket closed");
            }
        }
    }

    /** The peer answered MAP: map the region read-only and run the reads that waited for it. */
    private void onMapped()
    {
        final UnsafeBuffer b = control.payload();
        final int o = UnixSeqPacket.payloadOffset();
        final int regionId = b.getInt(o + 4);
        final int status = b.getInt(o + 8);
        PeerRegion region = null;
        if (status == ShmControl.MAPPED_OK && control.receivedFdCount() == 1)
        {
            final long generation = b.getLong(o + 12);
            final long fileOffset = b.getLong(o + 20);
            final long base = b.getLong(o + 28);
            final long length = b.getLong(o + 36);
            try
            {
                final SharedMapping m = SharedMapping.mapReadOnly(control.receivedFd(0), fileOffset, length);
                final Long token = mapAsked.get(regionId);
                region = new PeerRegion(regionId, token == null ? 0 : token, generation, base, length, m);
            }
            catch (final RuntimeException e)
            {
                LOG.warn("shm: cannot map region {} of {}: {}", regionId, remoteAddress, e.getMessage());
            }
        }
        else
        {
            control.closeReceivedFds();
        }
        synchronized (lock)
        {
            mapAsked.remove(regionId);
            if (region != null)
            {
                if (lifecycle.isClosing())
                {
                    region.mapping().close();
                    return;
                }
                peerRegions.put(regionId, region);
            }
            window.inflight().takeIf(op -> op.remoteKey.nativeKey() == regionId, mappedNow);
            for (int i = 0; i < mappedNow.size(); i++)
            {
                final ShmOperation op = mappedNow.get(i);
                op.status(region == null ? TransportStatus.INVALID_RKEY : copy(region, op));
                done.addLast(op);
            }
            mappedNow.clear();
        }
    }

    private int promotePending()
    {
        int work = 0;
        synchronized (lock)
        {
            final ManyToOneRingBuffer ring = rings.outbound();
            while (lifecycle.isConnected() && window.credits().available() && !window.pending().isEmpty())
            {
                final ShmOperation op = window.pending().peek();
                if (!ring.write(MESSAGE_TYPE, op.payload, 0, op.length))
                {
                    break;
                }
                window.pending().poll();
                window.credits().take(op);
                op.status(TransportStatus.OK);
                done.addLast(op);
                work++;
            }
            if (work > 0)
            {
                rings.wakePeerIfParked(peerEventFd);
            }
        }
        return work;
    }

    /** Pending sends and reads waiting for a mapping past their deadline complete with TIMED_OUT. */
    private int expire(final long nowNanos)
    {
        synchronized (lock)
        {
            return window.takeExpired(nowNanos, done);
        }
    }

    private int deliverCompletions()
    {
        synchronized (lock)
        {
            if (done.isEmpty())
            {
                return 0;
            }
            completing.addAll(done);
            done.clear();
        }
        final int n = completing.size();
        window.completeAll(completing); // each: its credit back, pooled, then its handler
        return n;
    }

    /**
     * Under lock: unless going down already, no operation is admitted any more and every waiting one completes with
     * {@code status} (also {@code onDisconnected}'s, with {@code detail}).
     */
    private void goDown(final TransportStatus status, final String detail)
    {
        if (!beginClose(status, detail))
        {
            return;
        }
        window.takeAll(status, done);
        mapRequests.clear();
    }

    /** Once nothing is outstanding: unmap and close everything the connection holds. */
    @Override
    protected void doTeardown()
    {
        synchronized (lock)
        {
            releaseLocked();
        }
    }

    private void releaseLocked()
    {
        for (final PeerRegion r : peerRegions.values())
        {
            r.mapping().close();
        }
        peerRegions.clear();
        worker.unwatch(control.fd());
        control.close();
        peerRegionTable.close(); // the rings stay mapped until the worker has forgotten them (ShmWakeup.arm)
        LibC.close(peerEventFd);
    }

    /** The worker is closing: fail everything now, on the closing thread, and release. */
    void closeFromWorker()
    {
        requestClose();
        synchronized (lock)
        {
            goDown(TransportStatus.CLOSED, "worker closed");
        }
        deliverCompletions();
        finishClose(); // as tcp and verbs do on a worker close: the handler hears of every endpoint it loses, once
    }

    /** Delivers inbound ring records to the handler, in place. */
    private final class RingBufferReader implements org.agrona.concurrent.MessageHandler
    {
        int count;

        @Override
        public void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            count++;
            if (msgTypeId != MESSAGE_TYPE)
            {
                return;
            }
            try
            {
                handler.onMessage(ShmEndpoint.this, buffer, index, length);
            }
            catch (final Throwable t)
            {
                LOG.error("onMessage handler threw", t);
            }
        }
    }

    ShmRings rings()
    {
        return rings;
    }

    @Override
    public String toString()
    {
        return "ShmEndpoint{" + remoteAddress + '}';
    }
}
