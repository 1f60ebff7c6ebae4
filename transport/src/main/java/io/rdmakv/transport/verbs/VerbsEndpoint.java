package io.rdmakv.transport.verbs;

import io.netty.channel.Channel;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.MemoryWindow;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.base.AbstractEndpoint;
import io.rdmakv.transport.base.EndpointLifecycle;
import io.rdmakv.transport.base.OperationWindow;
import io.rdmakv.transport.verbs.ffi.LibIbverbs;
import io.rdmakv.transport.verbs.ffi.RecvWorkRequests;
import io.rdmakv.transport.verbs.ffi.WorkCompletions;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.*;

/**
 * One RC connection over the shared {@link AbstractEndpoint} (its life and refusal unless connected; argument checks;
 * the window's request ids, pending queue, deadlines): the operations of {@link Endpoint} and its teardown. The native
 * side (QP, work requests, a slice of the worker's buffers) is {@link EndpointResources}; posting within credits and
 * queue room is {@link SendPath}; completing what the send queue finished is {@link SendQueueCompletions}; receiving
 * is {@link ReceivePath}.
 *
 * <p>Sends: a message is cut into fragments of the peer's receive-buffer size, each one Send-with-immediate that
 * consumes one credit (a receive the peer has posted); the immediate carries returned credits and a MORE flag
 * ({@link ImmediateData}). The peer starts with its receive depth minus one credits; the last receive is kept for
 * explicit credit messages. Only the last fragment of a message with a handler, and every {@code signalInterval}-th
 * send, is signaled. Reads: signaled RDMA Reads into the bounce area, copied to the caller's buffer on completion;
 * a batch is one linked list of work requests, one doorbell. What does not fit now waits in {@link PendingQueue}.
 * Credits are verbs' own (the peer's receives, send-queue slots, bounce space), not the window's.
 *
 * <p>Threads: operations may come from any thread and are serialised by the window's lock ({@link #lock()});
 * completions, receives and every callback run on the worker's thread, never under the lock.
 */
final class VerbsEndpoint extends AbstractEndpoint<PendingQueue.Op>
{
    private static final Logger LOG = LoggerFactory.getLogger(VerbsEndpoint.class);

    private final VerbsWorker worker;
    private final VerbsConfig config;
    private final Object lock;
    private final InetSocketAddress remoteAddress;
    final VerbsQueuePair qp;

    private final EndpointResources res;
    /**
     * Windows bound (or being bound) on this QP and not closed: deallocated at teardown after the QP went to error and
     * before it is destroyed. A type 2 window holds its QP (rxe takes a reference at the bind and drops it only at
     * the invalidation or the dealloc): a QP destroyed under a bound window is waited for, then freed under it.
     */
    private final java.util.Set<VerbsMemoryWindow> windows = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final int fragmentBytes;
    private final SendQueueRing ring;
    private final PendingQueue pending;
    /** Posting; its {@link PostCounts} are read under {@link #lock()} by {@link WorkerCounters}. */
    final SendPath sendPath;
    private final SendQueueCompletions completions;
    private final ReceivePath receivePath;

    private volatile Channel channel;
    private volatile boolean peerSaidBye;

    /**
     * Create the QP over a slice of the worker's registered buffers, move to INIT and post every receive (before RTR,
     * as required).
     */
    VerbsEndpoint(final VerbsWorker worker, final VerbsConfig config, final VerbsDevice device, final long cq,
        final EndpointBufferLayout layout, final EndpointBufferPool.Slice slice, final EndpointHandler handler,
        final InetSocketAddress remoteAddress, final int psn)
    {
        super(newWindow(config), handler, RemoteKey.TRANSPORT_VERBS, worker);
        this.lock = window.lock();
        this.worker = worker;
        this.config = config;
        this.remoteAddress = remoteAddress;
        this.fragmentBytes = config.fragmentBytes;
        this.res = new EndpointResources(config, device, cq, layout, slice, psn);
        this.qp = res.qp;
        this.ring = new SendQueueRing(res.sendDepth(), config.readBounceBytes);
        this.pending = new PendingQueue(window, Math.max(config.maxMessageBytes * 4, 1 << 22));
        this.sendPath = new SendPath(res, ring, pending, config, detail ->
        {
            if (beginClose(TransportStatus.TRANSPORT_ERROR, detail)) // refused from now on; failed on the worker
            {
                worker.execute(() -> failBegun(TransportStatus.TRANSPORT_ERROR, -1, TransportStatus.TRANSPORT_ERROR,
                    detail));
            }
        });
        this.completions = new SendQueueCompletions(res, ring, pending, sendPath);
        this.receivePath = new ReceivePath(this, worker, res, sendPath, config.maxMessageBytes);
    }

    /** Verbs counts its own credits ({@link SendPath}): the window keeps ids, the pending queue and its deadlines. */
    private static OperationWindow<PendingQueue.Op> newWindow(final VerbsConfig config)
    {
        return new OperationWindow<>(PendingQueue.Op::new, 0, config.maxPending, config.operationTimeoutNs,
            SystemNanoClock.INSTANCE);
    }

    /** The lock that serialises operations, completions' bookkeeping and the send path (the window's). */
    Object lock()
    {
        return lock;
    }

    @Override
    protected int maxSendBytes()
    {
        return config.maxMessageBytes;
    }

    @Override
    protected int maxReadBytes()
    {
        return VerbsTransportProvider.MAX_READ_BYTES;
    }

    @Override
    protected TransportStatus checkRemoteRange(final long remoteAddress, final RemoteKey remoteKey, final int length)
    {
        return remoteKey.covers(remoteAddress, length) ? null : TransportStatus.OUT_OF_BOUNDS;
    }

    /** RTR then RTS with the peer's half of the handshake; the endpoint may send afterwards. */
    void connectQueuePair(final VerbsQueuePair.Remote remote)
    {
        qp.toRtr(remote);
        qp.toRts();
        synchronized (lock)
        {
            sendPath.connect(remote.recvDepth(), remote.fragmentBytes());
        }
    }

    /** The connecting side's handshake is over (READY sent). */
    void connected()
    {
        synchronized (lock)
        {
            if (markConnected())
            {
                sendPath.open(true);
            }
        }
    }

    /**
     * An accepted endpoint becomes usable when the client says READY, or earlier when its first message arrives
     * (the client is in RTS by then): either way {@code onConnected} runs once, before any {@code onMessage}.
     */
    void activateAccepted()
    {
        synchronized (lock)
        {
            if (!markConnected())
            {
                return;
            }
            sendPath.open(true);
        }
        deliverConnected();
    }

    void attach(final Channel channel)
    {
        this.channel = channel;
    }

    /** True while the side channel (the TCP control connection) is open (tests). */
    boolean sideChannelActive()
    {
        final Channel c = channel;
        return c != null && c.isActive();
    }

    void peerSaidBye()
    {
        peerSaidBye = true;
    }

    boolean hasPeerSaidBye()
    {
        return peerSaidBye;
    }

    int fragmentBytes()
    {
        return fragmentBytes;
    }

    EndpointLifecycle.State state()
    {
        return lifecycle.state();
    }

    /** The QP and the slice of the worker's buffers (the worker gives the slice back after teardown). */
    EndpointResources resources()
    {
        return res;
    }

    // ---------------------------------------------------------------------------------------------- operations

    @Override
    protected long doPostSend(final DirectBuffer buffer, final int offset, final int length,
        final CompletionHandler handler)
    {
        synchronized (lock)
        {
            final long refused = lifecycle.refusalSentinel();
            if (refused != 0)
            {
                return refused;
            }
            final long id = window.nextRequestIdLocked();
            int posted = 0;
            if (pending.isEmpty())
            {
                posted = sendPath.postFragments(buffer, offset, length, 0, id, handler);
                if (posted < 0)
                {
                    return TransportStatus.PEER_FAILED.sentinel();
                }
                if (sendPath.lastPostComplete())
                {
                    return id;
                }
            }
            if (!pending.addSend(id, handler, buffer, offset + posted, length - posted, posted))
            {
                if (posted > 0)
                {
                    // Part of it is already on the wire: the rest must follow or the stream would be torn.
                    worker.execute(() -> fail(TransportStatus.TRANSPORT_ERROR,
                        "pending queue overflow in the middle of a message"));
                    return id;
                }
                window.unissueLocked(id);
                return TransportStatus.BACK_PRESSURED.sentinel();
            }
            return id;
        }
    }

    @Override
    protected long doPostRead(final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
    {
        synchronized (lock)
        {
            final long refused = lifecycle.refusalSentinel();
            if (refused != 0)
            {
                return refused;
            }
            final long id = window.nextRequestIdLocked();
            if (pending.isEmpty() && ring.free() > 0)
            {
                final int sendSlot = sendPath.prepareRead(id, remoteAddress, remoteKey, length, destination, destinationOffset,
                    handler);
                if (sendSlot >= 0)
                {
                    return sendPath.postChain(sendSlot) ? id : TransportStatus.PEER_FAILED.sentinel();
                }
            }
            if (!pending.addRead(id, handler, remoteAddress, remoteKey, length, destination, destinationOffset))
            {
                window.unissueLocked(id);
                return TransportStatus.BACK_PRESSURED.sentinel();
            }
            return id;
        }
    }

    @Override
    public int readBatch(final ReadRequest[] requests, final int count)
    {
        synchronized (lock)
        {
            if (lifecycle.refusalSentinel() != 0)
            {
                return 0;
            }
            int first = -1;
            int previous = -1;
            int accepted = 0;
            for (; accepted < count; accepted++)
            {
                final ReadRequest r = requests[accepted];
                if (checkRead(r.remoteAddress, r.remoteKey, r.length, r.destination, r.destinationOffset) != null)
                {
                    break;
                }
                final long id = window.nextRequestIdLocked();
                int sendSlot = -1;
                if (pending.isEmpty() && ring.free() > 0)
                {
                    sendSlot = sendPath.prepareRead(id, r.remoteAddress, r.remoteKey, r.length, r.destination,
                        r.destinationOffset, r.handler);
                }
                if (sendSlot >= 0)
                {
                    if (previous >= 0)
                    {
                        sendPath.link(previous, sendSlot);
                    }
                    else
                    {
                        first = sendSlot;
                    }
                    previous = sendSlot;
                }
                else if (!pending.addRead(id, r.handler, r.remoteAddress, r.remoteKey, r.length, r.destination,
                    r.destinationOffset))
                {
                    window.unissueLocked(id);
                    break;
                }
            }
            if (first >= 0 && !sendPath.postChain(first))
            {
                return 0;
            }
            return accepted;
        }
    }

    // ------------------------------------------------------------------------------ memory windows

    /**
     * Allocate a type 2 memory window and bind it over the range by a send work request on this endpoint's QP: the
     * window is then valid for reads arriving on this QP only, i.e. from this peer. The bind is one more tracked
     * operation on the send queue (signaled, ordered with the rest, under the operation timeout); the future
     * completes on the worker's thread.
     */
    @Override
    public CompletableFuture<MemoryWindow> bindWindow(final MemoryRegion region, final long address, final long length)
    {
        final VerbsDevice device = worker.device();
        if (!device.supportsWindows())
        {
            return CompletableFuture.failedFuture(new UnsupportedOperationException("verbs device " + device.name +
                " has no type 2 memory windows"));
        }
        final long mr;
        try
        {
            mr = worker.memoryDomain().windowableMr(region);
        }
        catch (final TransportException e)
        {
            return CompletableFuture.failedFuture(e);
        }
        if (length <= 0 || address < region.address() || address - region.address() > region.length() - length)
        {
            return CompletableFuture.failedFuture(new TransportException(TransportStatus.OUT_OF_BOUNDS,
                "window [0x" + Long.toHexString(address) + ", +" + length + ") is not inside " + region, null));
        }
        final long mw = device.ops.allocMw(device.pd, MW_TYPE_2);
        if (mw == 0)
        {
            return CompletableFuture.failedFuture(new TransportException(TransportStatus.TRANSPORT_ERROR,
                "ibv_alloc_mw(type 2) on " + device.name + " failed", null));
        }
        final VerbsMemoryWindow window = new VerbsMemoryWindow(this, device, mw, mr, address, length);
        windows.add(window);
        if (lifecycle.isClosing())
        {
            window.close(); // the teardown may have run before the add: never leave a window on a dead QP
            return CompletableFuture.failedFuture(new TransportException(TransportStatus.NOT_CONNECTED,
                "memory window bind on a closing endpoint", null));
        }
        final CompletableFuture<MemoryWindow> bound = new CompletableFuture<>();
        final TransportStatus refused = postWindowOp(window, true, (status, id) ->
        {
            if (status == TransportStatus.OK)
            {
                bound.complete(window);
            }
            else
            {
                window.close();
                bound.completeExceptionally(new TransportException(status, "memory window bind failed: " +
                    status.description(), null));
            }
        });
        if (refused != null)
        {
            window.close();
            bound.completeExceptionally(new TransportException(refused, "memory window bind not posted: " +
                refused.description(), null));
        }
        return bound;
    }

    /**
     * Post a window's bind ({@code bind} true) or local invalidation on this QP.
     *
     * @return null when the work request was handed to the device or the endpoint failed trying (the handler runs
     *         either way), else why it was refused before (the handler will not run).
     */
    TransportStatus postWindowOp(final VerbsMemoryWindow mw, final boolean bind, final CompletionHandler handler)
    {
        synchronized (lock)
        {
            final long refused = lifecycle.refusalSentinel();
            if (refused != 0)
            {
                return TransportStatus.fromSentinel(refused);
            }
            final long id = window.nextRequestIdLocked();
            final int sendSlot = sendPath.claimWindowOp(id, handler);
            if (sendSlot < 0)
            {
                window.unissueLocked(id);
                return TransportStatus.BACK_PRESSURED;
            }
            if (bind)
            {
                res.sendWrs.prepareBindWindow(sendSlot, sendSlot, mw.mw, mw.rkey, mw.mr, mw.address, mw.length,
                    ACCESS_REMOTE_READ, SEND_SIGNALED);
            }
            else
            {
                res.sendWrs.prepareLocalInvalidate(sendSlot, sendSlot, mw.rkey, SEND_SIGNALED);
            }
            // A failed post fails the endpoint, which completes every tracked slot, this one too: the handler runs.
            sendPath.postChain(sendSlot);
            return null;
        }
    }

    // ------------------------------------------------------------------------------ completions (worker thread)

    /** One completion of this endpoint's QP; called by the worker's poll loop. */
    void onCompletion(final WorkCompletions wcs, final int i)
    {
        final long wrId = wcs.wrId(i);
        final int status = wcs.status(i);
        if (status != WC_SUCCESS)
        {
            onErrorCompletion(wcs, i, wrId, status);
        }
        else if ((wrId & RecvWorkRequests.RECV_WR_ID_FLAG) != 0)
        {
            receivePath.onReceive((int)(wrId & Integer.MAX_VALUE), wcs.byteLen(i), wcs.immData(i));
        }
        else
        {
            onSendQueueCompletion((int)wrId);
        }
    }

    /**
     * An error completion ends the endpoint: on RC the QP is in the error state now, so nothing more can run on it.
     * A send-queue error names the work request that failed (wr_id is valid in error completions): that operation
     * completes with its own status ({@link #statusOfFailed}), every other outstanding one with PEER_FAILED (the
     * device flushes them), and {@code onDisconnected} reports the failed operation's status as the cause. Flushes
     * (the QP was already in error) and receive errors fail everything with the mapped status.
     */
    private void onErrorCompletion(final WorkCompletions wcs, final int i, final long wrId, final int status)
    {
        if (lifecycle.isClosing())
        {
            return; // flushes after we moved the QP to ERR ourselves
        }
        final boolean receive = (wrId & RecvWorkRequests.RECV_WR_ID_FLAG) != 0;
        final String detail = (receive ? "receive" : "send queue") + " completion error: " +
            LibIbverbs.ibv_wc_status_str(status) + " (status " + status + ", vendor error 0x" +
            Integer.toHexString(wcs.vendorErr(i)) + ")";
        if (receive || status == WC_WR_FLUSH_ERR)
        {
            fail(mapStatus(status), detail);
            return;
        }
        final int sendSlot = (int)wrId;
        final boolean read;
        synchronized (lock)
        {
            read = ring.isPosted(sendSlot) && ring.kind[sendSlot] == SendQueueRing.KIND_READ;
        }
        fail(TransportStatus.PEER_FAILED, sendSlot, statusOfFailed(read, status),
            detail + (read ? "; the target refused a read, and RC ends the connection with it" : ""));
    }

    /**
     * The status of the operation a send-queue error completion names. A read that the target's device refused with
     * a remote access error passed our own bounds check against its {@link RemoteKey}, so the target does not (or no
     * longer) know the key: the region was deregistered or never registered (a region registered without
     * REMOTE_READ answers the same, the device gives one error for both): {@link TransportStatus#INVALID_RKEY}, as
     * the tcp transport answers a closed or unknown region.
     */
    static TransportStatus statusOfFailed(final boolean read, final int wcStatus)
    {
        return read && wcStatus == WC_REM_ACCESS_ERR ? TransportStatus.INVALID_RKEY : mapStatus(wcStatus);
    }

    static TransportStatus mapStatus(final int wcStatus)
    {
        switch (wcStatus)
        {
            case WC_RETRY_EXC_ERR:
            case WC_RNR_RETRY_EXC_ERR:
            case WC_WR_FLUSH_ERR:
                return TransportStatus.PEER_FAILED;
            case WC_REM_ACCESS_ERR:
            case WC_REM_INV_REQ_ERR:
                return TransportStatus.ACCESS_DENIED;
            default:
                return TransportStatus.TRANSPORT_ERROR;
        }
    }

    private void onSendQueueCompletion(final int sendSlot)
    {
        synchronized (lock)
        {
            if (lifecycle.state() != EndpointLifecycle.State.CONNECTED || !completions.collectUpTo(sendSlot))
            {
                return;
            }
        }
        completions.completeCollected();
    }

    /** End of a poll batch: re-post the receives this endpoint consumed in it (worker thread). */
    void flushReceives()
    {
        receivePath.flush();
    }

    /** Fail operations older than the operation timeout; worker thread. */
    void checkTimeouts(final long nowNanos)
    {
        final boolean expired;
        synchronized (lock)
        {
            if (lifecycle.state() != EndpointLifecycle.State.CONNECTED)
            {
                return;
            }
            expired = completions.oldestExpired(nowNanos, config.operationTimeoutNs);
        }
        if (expired)
        {
            fail(TransportStatus.TIMED_OUT, "an operation did not complete within " +
                config.operationTimeoutNs / 1_000_000 + " ms");
        }
    }

    // --------------------------------------------------------------------------------------------- teardown

    /** Fail the endpoint: every outstanding operation completes with {@code status}. Worker thread. */
    void fail(final TransportStatus status, final String detail)
    {
        fail(status, -1, status, detail);
    }

    /**
     * Fail the endpoint: the operation in send-queue slot {@code failedSendSlot} (none when negative) completes with
     * {@code failedStatus}, every other outstanding one with {@code status}; {@code onDisconnected} reports
     * {@code failedStatus}. Worker thread.
     */
    private void fail(final TransportStatus status, final int failedSendSlot, final TransportStatus failedStatus,
        final String detail)
    {
        if (beginClose(failedStatus, detail))
        {
            failBegun(status, failedSendSlot, failedStatus, detail);
        }
    }

    /** The rest of {@link #fail} for the caller that began the close: drain, tear down, complete, disconnect. */
    private void failBegun(final TransportStatus status, final int failedSendSlot, final TransportStatus failedStatus,
        final String detail)
    {
        final List<Runnable> callbacks;
        synchronized (lock)
        {
            sendPath.open(false);
            callbacks = completions.drainAll(status, failedSendSlot, failedStatus);
        }
        LOG.debug("{} failed: {} ({})", this, failedStatus, detail);
        teardown(false);
        callbacks.forEach(Runnable::run);
        finishClose();
    }

    /**
     * The side channel reports the peer gone (worker thread). What the device has already completed is taken first,
     * so that an operation the peer's device answered (a refused read: the peer tears its side down only after its
     * QP went to error, which follows the refusal it sent) completes with that answer, not with the loss; what is
     * still outstanding then fails with PEER_FAILED.
     */
    void sideChannelLost(final String detail)
    {
        if (lifecycle.isClosing())
        {
            return;
        }
        final int taken = worker.drainCompletions();
        LOG.debug("{}: side channel lost ({}); {} completion(s) taken first, endpoint {}", this, detail, taken,
            lifecycle);
        fail(TransportStatus.PEER_FAILED, detail);
    }

    @Override
    public void close()
    {
        requestClose();
        final List<Runnable> callbacks;
        synchronized (lock)
        {
            if (!beginClose(TransportStatus.CLOSED, "closed locally"))
            {
                return;
            }
            sendPath.open(false);
            callbacks = completions.drainAll(TransportStatus.CLOSED);
        }
        teardown(true);
        worker.execute(() ->
        {
            callbacks.forEach(Runnable::run);
            finishClose();
        });
    }

    /**
     * Nothing left for the base's teardown: verbs tears its QP down when the close begins ({@link #teardown}), before
     * the completions run, so that none of them meets a QP being destroyed.
     */
    @Override
    protected void doTeardown()
    {
    }

    /**
     * Destroy the QP (its windows deallocated first, once it is in error: nothing bound on it runs any more), hand
     * the slice back to the worker, close the control channel. Any thread, once.
     */
    private void teardown(final boolean sayBye)
    {
        res.release(this::closeWindows);
        worker.execute(() -> worker.forget(this));
        final Channel c = channel;
        if (c != null)
        {
            if (sayBye && c.isActive())
            {
                ControlChannel.sendByeAndClose(c);
            }
            else
            {
                c.close();
            }
        }
    }

    /** A window of this endpoint was closed (by its owner, or by the teardown). */
    void windowClosed(final VerbsMemoryWindow window)
    {
        windows.remove(window);
    }

    private void closeWindows()
    {
        for (final VerbsMemoryWindow window : windows)
        {
            try
            {
                window.close();
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("{}: memory window not deallocated before its QP: {}", this, ex.getMessage());
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ queries

    @Override
    public InetSocketAddress remoteAddress()
    {
        return remoteAddress;
    }

    @Override
    public int outstanding()
    {
        synchronized (lock)
        {
            return sendPath.tracked() + pending.size();
        }
    }

    @Override
    public String toString()
    {
        return "VerbsEndpoint{qp=" + qp.qpNumber + ", peer=" + remoteAddress + ", state=" + lifecycle + '}';
    }
}
