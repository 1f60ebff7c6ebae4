package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.verbs.ffi.LibIbverbs;
import io.rdmakv.transport.verbs.ffi.NativeBlock;
import io.rdmakv.transport.verbs.ffi.RecvWorkRequests;
import io.rdmakv.transport.verbs.ffi.SendWorkRequests;
import io.rdmakv.transport.verbs.ffi.VerbsOps;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The native side of one endpoint, set up once when the connection is made: its slice of the worker's registered
 * {@link EndpointBufferPool} (nothing is registered here), the QP, and the work requests and call arguments that
 * every post reuses. The slice's layout is {@link EndpointBufferLayout}: send slot i = send WR i = send buffer i,
 * receive WR i = receive buffer i, then the read bounce area.
 *
 * Posting passes three pointers prepared here ({@code qp}, the first WR, a bad-WR slot): nothing is allocated.
 */
final class EndpointResources
{
    final VerbsQueuePair qp;
    final int fragmentBytes;
    final int lkey;
    final SendWorkRequests sendWrs;
    /** The slice of the worker's pool this endpoint uses; given back by the worker after {@link #release()}. */
    final EndpointBufferPool.Slice slice;
    /** The whole slice: send buffers, receive buffers and bounce area at their offsets. */
    final UnsafeBuffer view;
    /** The bounce area alone, from its offset 0. */
    final UnsafeBuffer bounceView;

    private final EndpointBufferLayout layout;
    private final RecvWorkRequests recvWrs;
    private final int sendDepth;
    private final int recvDepth;
    private final VerbsOps.Post postSendCall;
    private final VerbsOps.Post postRecvCall;
    private final NativeBlock badWr = new NativeBlock(64);
    private boolean released;

    /** Create the QP over {@code slice}, move it to INIT and post every receive (receives must precede RTR). */
    EndpointResources(final VerbsConfig config, final VerbsDevice device, final long cq,
        final EndpointBufferLayout layout, final EndpointBufferPool.Slice slice, final int psn)
    {
        this.layout = layout;
        this.slice = slice;
        this.fragmentBytes = layout.fragmentBytes;
        this.lkey = slice.lkey;
        this.view = slice.view;
        this.bounceView = slice.bounceView;
        final int sendDepth = layout.sendDepth;
        final int recvDepth = layout.recvDepth;
        this.sendWrs = new SendWorkRequests(sendDepth);

        final VerbsQueuePair created = new VerbsQueuePair(device, config, cq, sendDepth, recvDepth, psn);
        try
        {
            created.toInit();
        }
        catch (final RuntimeException e)
        {
            created.destroy();
            throw e;
        }
        this.qp = created;
        this.recvWrs = new RecvWorkRequests(recvDepth, slice.address + layout.recvBase, fragmentBytes, lkey);
        this.sendDepth = sendDepth;
        this.recvDepth = recvDepth;
        final long[] sendWrAddresses = new long[sendDepth];
        for (int i = 0; i < sendDepth; i++)
        {
            sendWrAddresses[i] = sendWrs.address(i);
        }
        final long[] recvWrAddresses = new long[recvDepth];
        for (int i = 0; i < recvDepth; i++)
        {
            recvWrAddresses[i] = recvWrs.address(i);
        }
        this.postSendCall = device.ops.postSend(qp.qp, sendWrAddresses, badWr.address());
        this.postRecvCall = device.ops.postRecv(qp.qp, recvWrAddresses, badWr.address());

        // All receives in one list, one call; then unlink them so each can be re-posted alone.
        for (int i = 0; i < recvDepth; i++)
        {
            recvWrs.link(i, i + 1 < recvDepth ? i + 1 : -1);
        }
        final int rc = postRecv(0);
        for (int i = 0; i < recvDepth; i++)
        {
            recvWrs.link(i, -1);
        }
        if (rc != 0)
        {
            release();
            throw new TransportException("posting " + recvDepth + " receives failed: " + LibIbverbs.describeErrno(rc));
        }
    }

    int sendDepth()
    {
        return sendDepth;
    }

    int recvDepth()
    {
        return recvDepth;
    }

    /** Offset of send buffer {@code sendSlot} in {@link #view}. */
    int sendOffset(final int sendSlot)
    {
        return layout.sendOffset(sendSlot);
    }

    long sendAddress(final int sendSlot)
    {
        return slice.address + layout.sendOffset(sendSlot);
    }

    /** Offset of receive buffer {@code index} in {@link #view}. */
    int recvOffset(final int index)
    {
        return layout.recvOffset(index);
    }

    /** Native address of {@code offset} in the bounce area. */
    long bounceAddress(final int offset)
    {
        return slice.address + layout.bounceBase + offset;
    }

    /** {@code ibv_post_send} of the list that starts at send WR {@code firstSlot}; 0 or an errno. Caller serialises. */
    int postSend(final int firstSlot)
    {
        return postSendCall.post(firstSlot);
    }

    /**
     * Re-post {@code count} receive buffers named in {@code indexes} as one list, one call; 0 or an errno.
     * Caller serialises.
     */
    int postRecvList(final int[] indexes, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            recvWrs.link(indexes[i], i + 1 < count ? indexes[i + 1] : -1);
        }
        return postRecv(indexes[0]);
    }

    /** {@code ibv_post_recv} of receive WR {@code index}; 0 or an errno. Caller serialises. */
    int postRecv(final int index)
    {
        return postRecvCall.post(index);
    }

    /**
     * Move the QP to ERR (flushing what is posted) and destroy it; afterwards nothing writes into the slice, and the
     * worker may give it to another endpoint. Idempotent, any thread.
     */
    synchronized void release()
    {
        release(() -> { });
    }

    /**
     * As {@link #release()}, running {@code beforeDestroy} between the move to ERR and the destroy (the endpoint's
     * memory windows are deallocated there: a device holds a QP while a type 2 window is bound on it).
     */
    synchronized void release(final Runnable beforeDestroy)
    {
        if (released)
        {
            return;
        }
        released = true;
        qp.toError();
        beforeDestroy.run();
        qp.destroy();
    }

    synchronized boolean isReleased()
    {
        return released;
    }
}
