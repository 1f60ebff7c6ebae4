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
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * One shm connection over the shared {@link AbstractEndpoint} (its life, argument checks, the operation window:
 * credits, pending queue, reads waiting for a mapping in its in-flight table, deadlines): sends are records in the
 * outbound ring of the connection's shared file, received messages are read out of the inbound ring in place, and a
 * one-sided read is a copy out of the peer's registered memory file, mapped read-only into this process after the
 * peer checked the remote key's token ({@link ShmPeerRegions}).
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
    private final InetSocketAddress remoteAddress;
    private final int maxSendBytes;
    private final int maxReadBytes;

    private final Object lock;
    /** Completed operations (taken out of the window) waiting for the progress thread to deliver them. */
    private final ArrayDeque<ShmOperation> done = new ArrayDeque<>();
    private final ShmPeerRegions peerRegions;

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
        this.peerRegions = new ShmPeerRegions(peerRegionTable.buffer());
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
            final PeerRegion region = peerRegions.get(remoteKey);
            if (region != null)
            {
                op.status(copy(region, op));
                done.addLast(op);
            }
            else
            {
                window.inflight().track(op); // waits in the in-flight table for MAPPED
                peerRegions.ask(remoteKey);
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
            final PeerRegion region = peerRegions.get(remoteKey);
            return region == null ? null :
                peerRegions.copy(region, remoteAddress, remoteKey.token(), length, destination, destinationOffset);
        }
    }

    /**
     * {@link #readImmediate(long, RemoteKey, int, MutableDirectBuffer, int)} of each request under one hold of the
     * lock: the copies are not ordered behind each other's lock and unlock (each a fence), so their misses overlap.
     */
    @Override
    public int readImmediate(final ReadRequest[] requests, final int from, final int to)
    {
        synchronized (lock)
        {
            final long refused = lifecycle.refusalSentinel();
            for (int i = from; i < to; i++)
            {
                final ReadRequest r = requests[i];
                final TransportStatus invalid = checkRead(r.remoteAddress, r.remoteKey, r.length, r.destination,
                    r.destinationOffset);
                if (invalid != null || refused < 0)
                {
                    r.immediateStatus = invalid != null ? invalid : TransportStatus.fromSentinel(refused);
                    continue;
                }
                final PeerRegion region = peerRegions.get(r.remoteKey);
                if (region == null)
                {
                    r.immediateStatus = null;
                    return i;
                }
                r.immediateStatus = peerRegions.copy(region, r.remoteAddress, r.remoteKey.token(), r.length,
                    r.destination, r.destinationOffset);
            }
        }
        return to;
    }

    /** Under lock: copy a posted read out of the peer's mapped region. */
    private TransportStatus copy(final PeerRegion region, final ShmOperation op)
    {
        return peerRegions.copy(region, op.remoteAddress, op.remoteKey.token(), op.length, op.destination,
            op.destinationOffset);
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
            return peerRegions.hasRequests() || window.inflight().size() > 0;
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
            final int sent = peerRegions.sendRequests(control);
            if (sent < 0)
            {
                goDown(TransportStatus.PEER_FAILED, "control socket closed");
                return 1;
            }
            work += sent;
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
        if (!ShmControl.answerMap(control, localDomain))
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
        final int regionId = control.payload().getInt(UnixSeqPacket.payloadOffset() + 4);
        final long token;
        synchronized (lock)
        {
            token = peerRegions.askedToken(regionId);
        }
        final PeerRegion region = ShmPeerRegions.mapAnswer(control, regionId, token, remoteAddress);
        synchronized (lock)
        {
            if (region != null && lifecycle.isClosing())
            {
                peerRegions.answered(regionId, null);
                region.mapping().close();
                return;
            }
            peerRegions.answered(regionId, region);
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
        peerRegions.clearRequests();
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
        peerRegions.closeAll();
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
