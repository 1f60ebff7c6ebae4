package io.rdmakv.transport.verbs;

import com.sun.jna.Pointer;
import io.netty.channel.Channel;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.verbs.ffi.LibIbverbs;
import io.rdmakv.transport.verbs.ffi.NativeBlock;
import io.rdmakv.transport.verbs.ffi.RecvWorkRequests;
import io.rdmakv.transport.verbs.ffi.SendWorkRequests;
import io.rdmakv.transport.verbs.ffi.WorkCompletions;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.ExpandableRingBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.*;

/**
 * One RC connection. Memory is set up once, when the connection is made, and registered as one region:
 *
 * <pre>
 *  +-------------------------------+-------------------------------+-----------------------------+
 *  | send buffers                  | receive buffers               | read bounce area            |
 *  | sendDepth x fragmentBytes     | recvDepth x fragmentBytes     | readBounceBytes             |
 *  +-------------------------------+-------------------------------+-----------------------------+
 *  registered LOCAL_WRITE only; send slot i = send WR i = send-queue ring slot i; receive buffer i = recv WR i
 * </pre>
 *
 * <p>Sends: a message is cut into fragments of the peer's receive-buffer size, each one Send-with-immediate that
 * consumes one credit (a receive the peer has posted); the immediate carries returned credits and a MORE flag
 * ({@link ImmediateData}). The peer starts with its receive depth minus one credits; the last receive is kept for
 * explicit credit messages. Only the last fragment of a message with a handler, and every {@code signalInterval}-th
 * send, is signaled. Reads: signaled RDMA Reads into the bounce area, copied to the caller's buffer on completion;
 * a batch is one linked list of work requests, one doorbell. What does not fit now waits in {@link PendingQueue}.
 *
 * <p>Threads: operations may come from any thread and are serialised by this object's monitor; completions,
 * receives and every callback run on the worker's thread, never under the monitor.
 */
final class VerbsEndpoint implements Endpoint
{
    private static final Logger LOG = LoggerFactory.getLogger(VerbsEndpoint.class);

    enum State
    {
        CONNECTING, CONNECTED, CLOSED, FAILED
    }

    private final VerbsWorker worker;
    private final VerbsConfig config;
    private final EndpointHandler handler;
    private final InetSocketAddress remoteAddress;
    final VerbsQueuePair qp;

    private final NativeBlock memory;
    private final long mr;
    private final int lkey;
    private final int fragmentBytes;
    private final int sendBase;
    private final int recvBase;
    private final int bounceBase;
    private final UnsafeBuffer view;
    private final UnsafeBuffer bounceView;
    private final SendWorkRequests sendWrs;
    private final RecvWorkRequests recvWrs;
    private final Pointer[] sendWrPointers;
    private final Pointer[] recvWrPointers;
    private final Object[] postSendArgs;
    private final Object[] postRecvArgs;
    private final NativeBlock badWr = new NativeBlock(64);
    private final SendQueueRing ring;
    private final PendingQueue pending;
    private final CompletionHandler[] doneHandlers;
    private final long[] doneIds;
    private final ExpandableRingBuffer.MessageConsumer pendingSendConsumer = this::postPendingPayload;

    /** Progress thread only. */
    private final ExpandableDirectByteBuffer reassembly = new ExpandableDirectByteBuffer(0);
    private int reassemblyLength;

    private volatile State state = State.CONNECTING;
    private volatile Channel channel;
    private volatile boolean peerSaidBye;

    // Guarded by this.
    private int sendCredits;
    private int creditsToReturn;
    private int creditThreshold;
    private int peerFragment;
    private int unsignaledRun;
    private int trackedInRing;
    private long nextRequestId;
    private boolean lastPostComplete;
    private PendingQueue.Op drainingOp;

    /** Create the QP, register memory, move to INIT and post every receive (before RTR, as required). */
    VerbsEndpoint(final VerbsWorker worker, final VerbsConfig config, final VerbsDevice device, final long cq,
        final EndpointHandler handler, final InetSocketAddress remoteAddress, final int psn)
    {
        this.worker = worker;
        this.config = config;
        this.handler = handler;
        this.remoteAddress = remoteAddress;
        this.fragmentBytes = config.fragmentBytes;
        final int sendDepth = Math.min(config.sendDepth, device.maxQpWr);
        final int recvDepth = Math.min(config.recvDepth, device.maxQpWr);
        this.sendBase = 0;
        this.recvBase = sendDepth * fragmentBytes;
        this.bounceBase = recvBase + recvDepth * fragmentBytes;
        this.memory = new NativeBlock(bounceBase + config.readBounceBytes);
        this.view = memory.buffer();
        this.bounceView = new UnsafeBuffer(memory.address() + bounceBase, config.readBounceBytes);
        this.mr = worker.memoryDomain().registerRaw(memory.address(), memory.capacity(), ACCESS_LOCAL_WRITE,
            "endpoint buffers");
        this.lkey = VerbsMemoryDomain.lkey(mr);
        VerbsQueuePair created = null;
        try
        {
            created = new VerbsQueuePair(device, config, cq, sendDepth, recvDepth, psn);
            created.toInit();
        }
        catch (final RuntimeException e)
        {
            if (created != null)
            {
                created.destroy();
            }
            LibIbverbs.ibv_dereg_mr(mr);
            throw e;
        }
        this.qp = created;
        this.ring = new SendQueueRing(sendDepth, config.readBounceBytes);
        this.pending = new PendingQueue(config.maxPending, Math.max(config.maxMessageBytes * 4, 1 << 22));
        this.doneHandlers = new CompletionHandler[sendDepth];
        this.doneIds = new long[sendDepth];
        this.sendWrs = new SendWorkRequests(sendDepth);
        this.recvWrs = new RecvWorkRequests(recvDepth, memory.address() + recvBase, fragmentBytes, lkey);
        this.sendWrPointers = new Pointer[sendDepth];
        for (int i = 0; i < sendDepth; i++)
        {
            sendWrPointers[i] = new Pointer(sendWrs.address(i));
        }
        this.recvWrPointers = new Pointer[recvDepth];
        for (int i = 0; i < recvDepth; i++)
        {
            recvWrPointers[i] = new Pointer(recvWrs.address(i));
        }
        final Pointer qpPointer = new Pointer(qp.qp);
        final Pointer badWrPointer = new Pointer(badWr.address());
        this.postSendArgs = new Object[] {qpPointer, sendWrPointers[0], badWrPointer};
        this.postRecvArgs = new Object[] {qpPointer, recvWrPointers[0], badWrPointer};

        for (int i = 0; i < recvDepth; i++)
        {
            recvWrs.link(i, i + 1 < recvDepth ? i + 1 : -1);
        }
        postRecvArgs[1] = recvWrPointers[0];
        final int rc = worker.ops().postRecv(postRecvArgs);
        for (int i = 0; i < recvDepth; i++)
        {
            recvWrs.link(i, -1);
        }
        if (rc != 0)
        {
            qp.destroy();
            LibIbverbs.ibv_dereg_mr(mr);
            throw new io.rdmakv.transport.TransportException("posting " + recvDepth + " receives failed: " +
                LibIbverbs.describeErrno(rc));
        }
    }

    /** RTR then RTS with the peer's half of the handshake; the endpoint may send afterwards. */
    void connectQueuePair(final VerbsQueuePair.Remote remote)
    {
        qp.toRtr(remote);
        qp.toRts();
        synchronized (this)
        {
            sendCredits = remote.recvDepth() - 1;
            peerFragment = Math.min(fragmentBytes, remote.fragmentBytes());
            creditThreshold = Math.max(1, Math.min(qp.recvDepth / 4, remote.recvDepth() - 1));
        }
    }

    void markConnected()
    {
        state = State.CONNECTED;
    }

    /**
     * An accepted endpoint becomes usable when the client says READY, or earlier when its first message arrives
     * (the client is in RTS by then): either way {@code onConnected} runs once, before any {@code onMessage}.
     */
    void activateAccepted()
    {
        if (state != State.CONNECTING)
        {
            return;
        }
        state = State.CONNECTED;
        try
        {
            handler.onConnected(this);
        }
        catch (final RuntimeException e)
        {
            LOG.warn("onConnected handler threw for {}", this, e);
        }
    }

    void attach(final Channel channel)
    {
        this.channel = channel;
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

    State state()
    {
        return state;
    }

    EndpointHandler handler()
    {
        return handler;
    }

    // ---------------------------------------------------------------------------------------------- operations

    @Override
    public long send(final DirectBuffer buffer, final int offset, final int length, final CompletionHandler handler)
    {
        if (buffer == null || offset < 0 || length < 0 || (long)offset + length > buffer.capacity())
        {
            throw new IllegalArgumentException("send range offset=" + offset + " length=" + length +
                " outside buffer of " + (buffer == null ? "null" : buffer.capacity()) + " bytes");
        }
        if (length > config.maxMessageBytes)
        {
            return TransportStatus.MESSAGE_TOO_LARGE.sentinel();
        }
        synchronized (this)
        {
            final long refused = refusal();
            if (refused != 0)
            {
                return refused;
            }
            final long id = nextRequestId++;
            int posted = 0;
            if (pending.isEmpty())
            {
                posted = postFragments(buffer, offset, length, 0, id, handler);
                if (posted < 0)
                {
                    return TransportStatus.PEER_FAILED.sentinel();
                }
                if (lastPostComplete)
                {
                    return id;
                }
            }
            if (!pending.addSend(id, handler, buffer, offset + posted, length - posted, posted, System.nanoTime()))
            {
                if (posted > 0)
                {
                    // Part of it is already on the wire: the rest must follow or the stream would be torn.
                    worker.execute(() -> fail(TransportStatus.TRANSPORT_ERROR,
                        "pending queue overflow in the middle of a message"));
                    return id;
                }
                nextRequestId--;
                return TransportStatus.BACK_PRESSURED.sentinel();
            }
            return id;
        }
    }

    @Override
    public long read(final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
    {
        final TransportStatus invalid = validateRead(remoteAddress, remoteKey, length, destination, destinationOffset);
        if (invalid != null)
        {
            return invalid.sentinel();
        }
        synchronized (this)
        {
            final long refused = refusal();
            if (refused != 0)
            {
                return refused;
            }
            final long id = nextRequestId++;
            if (pending.isEmpty() && ring.free() > 0)
            {
                final int slot = prepareRead(id, remoteAddress, remoteKey, length, destination, destinationOffset,
                    handler);
                if (slot >= 0)
                {
                    return postChain(slot) ? id : TransportStatus.PEER_FAILED.sentinel();
                }
            }
            if (!pending.addRead(id, handler, remoteAddress, remoteKey, length, destination, destinationOffset,
                System.nanoTime()))
            {
                nextRequestId--;
                return TransportStatus.BACK_PRESSURED.sentinel();
            }
            return id;
        }
    }

    @Override
    public int readBatch(final ReadRequest[] requests, final int count)
    {
        synchronized (this)
        {
            if (refusal() != 0)
            {
                return 0;
            }
            int first = -1;
            int previous = -1;
            int accepted = 0;
            for (; accepted < count; accepted++)
            {
                final ReadRequest r = requests[accepted];
                if (validateRead(r.remoteAddress, r.remoteKey, r.length, r.destination, r.destinationOffset) != null)
                {
                    break;
                }
                final long id = nextRequestId++;
                int slot = -1;
                if (pending.isEmpty() && ring.free() > 0)
                {
                    slot = prepareRead(id, r.remoteAddress, r.remoteKey, r.length, r.destination,
                        r.destinationOffset, r.handler);
                }
                if (slot >= 0)
                {
                    if (previous >= 0)
                    {
                        sendWrs.link(previous, slot);
                    }
                    else
                    {
                        first = slot;
                    }
                    previous = slot;
                }
                else if (!pending.addRead(id, r.handler, r.remoteAddress, r.remoteKey, r.length, r.destination,
                    r.destinationOffset, System.nanoTime()))
                {
                    nextRequestId--;
                    break;
                }
            }
            if (first >= 0 && !postChain(first))
            {
                return 0;
            }
            return accepted;
        }
    }

    private static TransportStatus validateRead(final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset)
    {
        if (remoteKey == null || remoteKey.transportId() != RemoteKey.TRANSPORT_VERBS)
        {
            return TransportStatus.INVALID_RKEY;
        }
        if (length > VerbsTransportProvider.MAX_READ_BYTES)
        {
            return TransportStatus.MESSAGE_TOO_LARGE;
        }
        if (length < 0 || !remoteKey.covers(remoteAddress, length))
        {
            return TransportStatus.OUT_OF_BOUNDS;
        }
        if (destination == null || destinationOffset < 0 || (long)destinationOffset + length > destination.capacity())
        {
            throw new IllegalArgumentException("read destination range offset=" + destinationOffset + " length=" +
                length + " outside buffer of " + (destination == null ? "null" : destination.capacity()) + " bytes");
        }
        return null;
    }

    private long refusal()
    {
        final State s = state;
        if (s == State.CONNECTED)
        {
            return 0;
        }
        return s == State.CLOSED ? TransportStatus.CLOSED.sentinel() : TransportStatus.NOT_CONNECTED.sentinel();
    }

    // -------------------------------------------------------------------------------------- posting (under lock)

    /**
     * Post as many fragments of a message as credits and send-queue slots allow, as one chain.
     *
     * @return bytes of the message posted so far (from {@code sentBytes} on), or -1 if posting failed;
     *         {@link #lastPostComplete} tells whether the message is now fully posted.
     */
    private int postFragments(final DirectBuffer src, final int srcOffset, final int totalLength, final int sentBytes,
        final long id, final CompletionHandler handler)
    {
        lastPostComplete = false;
        int sent = sentBytes;
        int first = -1;
        int previous = -1;
        final long now = System.nanoTime();
        do
        {
            if (ring.free() == 0 || sendCredits == 0)
            {
                break;
            }
            final int chunk = Math.min(peerFragment, totalLength - sent);
            final boolean last = sent + chunk == totalLength;
            final boolean tracked = last && handler != null;
            final int slot = ring.claim(SendQueueRing.KIND_SEND, id, tracked ? handler : null, tracked, now);
            if (tracked)
            {
                trackedInRing++;
            }
            final int bufferOffset = sendBase + slot * fragmentBytes;
            view.putBytes(bufferOffset, src, srcOffset + (sent - sentBytes), chunk);
            final int imm = ImmediateData.encode(takeCreditsToReturn(), !last, false);
            sendWrs.prepareSend(slot, slot, memory.address() + bufferOffset, chunk, lkey,
                signalFlag(tracked) | (chunk <= qp.maxInline ? SEND_INLINE : 0), imm);
            if (previous >= 0)
            {
                sendWrs.link(previous, slot);
            }
            else
            {
                first = slot;
            }
            previous = slot;
            sendCredits--;
            sent += chunk;
            if (last)
            {
                lastPostComplete = true;
            }
        }
        while (sent < totalLength);
        if (first >= 0 && !postChain(first))
        {
            return -1;
        }
        return sent - sentBytes;
    }

    private int signalFlag(final boolean mustSignal)
    {
        if (mustSignal || ++unsignaledRun >= config.signalInterval)
        {
            unsignaledRun = 0;
            return SEND_SIGNALED;
        }
        return 0;
    }

    private int prepareRead(final long id, final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
    {
        final int bounce = ring.allocateBounce(length);
        if (bounce < 0)
        {
            return -1;
        }
        final int span = ring.lastSpan();
        final int slot = ring.claim(SendQueueRing.KIND_READ, id, handler, true, System.nanoTime());
        ring.bounceSpan[slot] = span;
        ring.bounceOffset[slot] = bounce;
        ring.destination[slot] = destination;
        ring.destinationOffset[slot] = destinationOffset;
        ring.length[slot] = length;
        trackedInRing++;
        unsignaledRun = 0;
        sendWrs.prepareRead(slot, slot, memory.address() + bounceBase + bounce, length, lkey, remoteAddress,
            remoteKey.nativeKey(), SEND_SIGNALED);
        return slot;
    }

    private boolean postChain(final int firstSlot)
    {
        postSendArgs[1] = sendWrPointers[firstSlot];
        final int rc = worker.ops().postSend(postSendArgs);
        if (rc != 0)
        {
            final String detail = "ibv_post_send failed: " + LibIbverbs.describeErrno(rc);
            worker.execute(() -> fail(TransportStatus.TRANSPORT_ERROR, detail));
            state = State.FAILED;
            return false;
        }
        return true;
    }

    private int takeCreditsToReturn()
    {
        final int credits = Math.min(creditsToReturn, ImmediateData.MAX_CREDITS);
        creditsToReturn -= credits;
        return credits;
    }

    /** Post what waits, in order, while resources last. */
    private void drainPendingLocked()
    {
        while (!pending.isEmpty() && state == State.CONNECTED)
        {
            final PendingQueue.Op op = pending.peek();
            if (op.isRead)
            {
                if (ring.free() == 0)
                {
                    return;
                }
                final int slot = prepareRead(op.requestId, op.remoteAddress, op.remoteKey, op.length, op.destination,
                    op.destinationOffset, op.handler);
                if (slot < 0)
                {
                    return;
                }
                pending.removeHead();
                if (!postChain(slot))
                {
                    return;
                }
            }
            else
            {
                drainingOp = op;
                lastPostComplete = false;
                pending.consumeHeadPayload(pendingSendConsumer);
                drainingOp = null;
                if (!lastPostComplete)
                {
                    return;
                }
                pending.removeHead();
            }
        }
    }

    private boolean postPendingPayload(
        final MutableDirectBuffer buffer, final int offset, final int length, final int headOffset)
    {
        final PendingQueue.Op op = drainingOp;
        final int skip = op.sentBytes - op.storedFrom;
        final int posted = postFragments(buffer, offset + skip, op.length, op.sentBytes, op.requestId, op.handler);
        if (posted > 0)
        {
            op.sentBytes += posted;
        }
        return lastPostComplete;
    }

    private void maybeReturnCreditsLocked()
    {
        if (creditsToReturn < creditThreshold || ring.free() == 0 || state != State.CONNECTED)
        {
            return;
        }
        final int slot = ring.claim(SendQueueRing.KIND_CREDIT, -1, null, false, System.nanoTime());
        final int imm = ImmediateData.encode(takeCreditsToReturn(), false, true);
        sendWrs.prepareSend(slot, slot, memory.address() + sendBase + slot * fragmentBytes, 0, lkey,
            signalFlag(false) | SEND_INLINE, imm);
        postChain(slot);
    }

    private void repostReceiveLocked(final int index)
    {
        postRecvArgs[1] = recvWrPointers[index];
        final int rc = worker.ops().postRecv(postRecvArgs);
        if (rc != 0)
        {
            final String detail = "ibv_post_recv failed: " + LibIbverbs.describeErrno(rc);
            worker.execute(() -> fail(TransportStatus.TRANSPORT_ERROR, detail));
            state = State.FAILED;
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
            onReceive((int)(wrId & Integer.MAX_VALUE), wcs.byteLen(i), wcs.immData(i));
        }
        else
        {
            onSendQueueCompletion((int)wrId);
        }
    }

    private void onErrorCompletion(final WorkCompletions wcs, final int i, final long wrId, final int status)
    {
        if (state == State.CLOSED || state == State.FAILED)
        {
            return; // flushes after we moved the QP to ERR ourselves
        }
        final String what = (wrId & RecvWorkRequests.RECV_WR_ID_FLAG) != 0 ? "receive" : "send queue";
        fail(mapStatus(status), what + " completion error: " + LibIbverbs.ibv_wc_status_str(status) +
            " (status " + status + ", vendor error 0x" + Integer.toHexString(wcs.vendorErr(i)) + ")");
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

    private void onSendQueueCompletion(final int slot)
    {
        int done = 0;
        synchronized (this)
        {
            if (state != State.CONNECTED || !ring.isPosted(slot))
            {
                return;
            }
            int index;
            do
            {
                index = ring.head();
                if (ring.tracked[index])
                {
                    if (ring.kind[index] == SendQueueRing.KIND_READ)
                    {
                        ring.destination[index].putBytes(ring.destinationOffset[index], bounceView,
                            ring.bounceOffset[index], ring.length[index]);
                    }
                    doneHandlers[done] = ring.handler[index];
                    doneIds[done] = ring.requestId[index];
                    done++;
                    trackedInRing--;
                }
                ring.pop();
            }
            while (index != slot);
            drainPendingLocked();
            maybeReturnCreditsLocked();
        }
        for (int k = 0; k < done; k++)
        {
            final CompletionHandler h = doneHandlers[k];
            doneHandlers[k] = null;
            complete(h, TransportStatus.OK, doneIds[k]);
        }
    }

    private void onReceive(final int index, final int byteLen, final int imm)
    {
        if (state != State.CONNECTED && state != State.CONNECTING)
        {
            return;
        }
        if (ImmediateData.hasUnknownBits(imm) || index >= qp.recvDepth || byteLen > fragmentBytes)
        {
            fail(TransportStatus.TRANSPORT_ERROR, "malformed message from peer (imm 0x" + Integer.toHexString(imm) +
                ", " + byteLen + " bytes)");
            return;
        }
        activateAccepted();
        if (!ImmediateData.isCreditOnly(imm))
        {
            final int offset = recvBase + index * fragmentBytes;
            if (ImmediateData.isMore(imm) || reassemblyLength > 0)
            {
                if (reassemblyLength + byteLen > config.maxMessageBytes)
                {
                    fail(TransportStatus.MESSAGE_TOO_LARGE, "peer sent a message larger than " +
                        config.maxMessageBytes + " bytes");
                    return;
                }
                reassembly.putBytes(reassemblyLength, view, offset, byteLen);
                reassemblyLength += byteLen;
                if (!ImmediateData.isMore(imm))
                {
                    final int length = reassemblyLength;
                    reassemblyLength = 0;
                    deliver(reassembly, 0, length);
                }
            }
            else
            {
                deliver(view, offset, byteLen);
            }
        }
        synchronized (this)
        {
            if (state != State.CONNECTED && state != State.CONNECTING)
            {
                return;
            }
            sendCredits += ImmediateData.credits(imm);
            repostReceiveLocked(index);
            if (!ImmediateData.isCreditOnly(imm))
            {
                creditsToReturn++;
            }
            if (state == State.CONNECTED)
            {
                drainPendingLocked();
                maybeReturnCreditsLocked();
            }
        }
    }

    private void deliver(final DirectBuffer buffer, final int offset, final int length)
    {
        try
        {
            handler.onMessage(this, buffer, offset, length);
        }
        catch (final RuntimeException e)
        {
            LOG.warn("onMessage handler of {} threw; message dropped", this, e);
        }
    }

    private void complete(final CompletionHandler h, final TransportStatus status, final long id)
    {
        if (h == null)
        {
            return;
        }
        try
        {
            h.onComplete(status, id);
        }
        catch (final RuntimeException e)
        {
            LOG.warn("completion handler of {} threw", this, e);
        }
    }

    /** Fail operations older than the operation timeout; worker thread. */
    void checkTimeouts(final long nowNanos)
    {
        boolean expired = false;
        synchronized (this)
        {
            if (state != State.CONNECTED)
            {
                return;
            }
            if (trackedInRing > 0)
            {
                for (int k = 0, index = ring.head(); k < ring.size(); k++, index = (index + 1) % ring.capacity)
                {
                    if (ring.tracked[index])
                    {
                        expired = nowNanos - ring.postNanos[index] > config.operationTimeoutNs;
                        break;
                    }
                }
            }
            if (!expired && !pending.isEmpty())
            {
                expired = nowNanos - pending.peek().enqueueNanos > config.operationTimeoutNs;
            }
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
        final State previous;
        final List<Runnable> callbacks;
        synchronized (this)
        {
            previous = state;
            if (previous == State.CLOSED || (previous == State.FAILED && callbacksRun))
            {
                return;
            }
            state = State.FAILED;
            callbacksRun = true;
            callbacks = drainOutstandingLocked(status);
        }
        LOG.debug("{} failed: {} ({})", this, status, detail);
        teardown(false);
        callbacks.forEach(Runnable::run);
        notifyDisconnected(status, detail);
    }

    private boolean callbacksRun;

    @Override
    public void close()
    {
        final List<Runnable> callbacks;
        synchronized (this)
        {
            if (state == State.CLOSED || (state == State.FAILED && callbacksRun))
            {
                return;
            }
            state = State.CLOSED;
            callbacksRun = true;
            callbacks = drainOutstandingLocked(TransportStatus.CLOSED);
        }
        teardown(true);
        worker.execute(() ->
        {
            callbacks.forEach(Runnable::run);
            notifyDisconnected(TransportStatus.CLOSED, "closed locally");
        });
    }

    private void notifyDisconnected(final TransportStatus status, final String detail)
    {
        try
        {
            handler.onDisconnected(this, status, detail);
        }
        catch (final RuntimeException e)
        {
            LOG.warn("onDisconnected handler of {} threw", this, e);
        }
    }

    private List<Runnable> drainOutstandingLocked(final TransportStatus status)
    {
        final List<Runnable> callbacks = new ArrayList<>();
        while (ring.size() > 0)
        {
            final int index = ring.head();
            if (ring.tracked[index])
            {
                final CompletionHandler h = ring.handler[index];
                final long id = ring.requestId[index];
                callbacks.add(() -> complete(h, status, id));
            }
            ring.pop();
        }
        trackedInRing = 0;
        while (!pending.isEmpty())
        {
            final PendingQueue.Op op = pending.peek();
            final CompletionHandler h = op.handler;
            final long id = op.requestId;
            callbacks.add(() -> complete(h, status, id));
            if (!op.isRead)
            {
                pending.discardHeadPayload();
            }
            pending.removeHead();
        }
        return callbacks;
    }

    /** Release the QP and memory registration, close the control channel. Any thread, once. */
    private void teardown(final boolean sayBye)
    {
        qp.toError();
        qp.destroy();
        LibIbverbs.ibv_dereg_mr(mr);
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

    // ------------------------------------------------------------------------------------------------ queries

    @Override
    public boolean isConnected()
    {
        return state == State.CONNECTED;
    }

    @Override
    public InetSocketAddress remoteAddress()
    {
        return remoteAddress;
    }

    @Override
    public synchronized int outstanding()
    {
        return trackedInRing + pending.size();
    }

    @Override
    public Worker worker()
    {
        return worker;
    }

    /** Send credits left (for tests and diagnostics). */
    synchronized int sendCredits()
    {
        return sendCredits;
    }

    @Override
    public String toString()
    {
        return "VerbsEndpoint{qp=" + qp.qpNumber + ", peer=" + remoteAddress + ", state=" + state + '}';
    }
}
