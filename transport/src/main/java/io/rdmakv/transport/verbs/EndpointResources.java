package io.rdmakv.transport.verbs;

import com.sun.jna.Pointer;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.verbs.ffi.LibIbverbs;
import io.rdmakv.transport.verbs.ffi.NativeBlock;
import io.rdmakv.transport.verbs.ffi.RecvWorkRequests;
import io.rdmakv.transport.verbs.ffi.SendWorkRequests;
import io.rdmakv.transport.verbs.ffi.VerbsOps;
import org.agrona.concurrent.UnsafeBuffer;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.ACCESS_LOCAL_WRITE;

/**
 * The native side of one endpoint, set up once when the connection is made: one block of memory registered as one
 * region, the QP, and the work requests and call arguments that every post reuses.
 *
 * <pre>
 *  +-------------------------------+-------------------------------+-----------------------------+
 *  | send buffers                  | receive buffers               | read bounce area            |
 *  | sendDepth x fragmentBytes     | recvDepth x fragmentBytes     | readBounceBytes             |
 *  +-------------------------------+-------------------------------+-----------------------------+
 *  registered LOCAL_WRITE only; send slot i = send WR i; receive buffer i = receive WR i
 * </pre>
 *
 * Posting passes three pointers prepared here ({@code qp}, the first WR, a bad-WR slot): nothing is allocated.
 */
final class EndpointResources
{
    final VerbsQueuePair qp;
    final int fragmentBytes;
    final int lkey;
    final SendWorkRequests sendWrs;
    /** The whole block: send buffers, receive buffers and bounce area at their offsets. */
    final UnsafeBuffer view;
    /** The bounce area alone, from its offset 0. */
    final UnsafeBuffer bounceView;

    private final VerbsOps ops;
    private final NativeBlock memory;
    private final long mr;
    private final int recvBase;
    private final int bounceBase;
    private final RecvWorkRequests recvWrs;
    private final Pointer[] sendWrPointers;
    private final Pointer[] recvWrPointers;
    private final Object[] postSendArgs;
    private final Object[] postRecvArgs;
    private final NativeBlock badWr = new NativeBlock(64);
    private boolean released;

    /** Register memory, create the QP, move it to INIT and post every receive (receives must precede RTR). */
    EndpointResources(final VerbsWorker worker, final VerbsConfig config, final VerbsDevice device, final long cq,
        final int psn)
    {
        this.ops = device.ops;
        this.fragmentBytes = config.fragmentBytes;
        final int sendDepth = Math.min(config.sendDepth, device.maxQpWr);
        final int recvDepth = Math.min(config.recvDepth, device.maxQpWr);
        this.recvBase = sendDepth * fragmentBytes;
        this.bounceBase = recvBase + recvDepth * fragmentBytes;
        this.memory = new NativeBlock(bounceBase + config.readBounceBytes);
        this.view = memory.buffer();
        this.bounceView = new UnsafeBuffer(memory.address() + bounceBase, config.readBounceBytes);
        this.sendWrs = new SendWorkRequests(sendDepth);

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
        return sendWrPointers.length;
    }

    int recvDepth()
    {
        return recvWrPointers.length;
    }

    /** Offset of send buffer {@code slot} in {@link #view}. */
    int sendOffset(final int slot)
    {
        return slot * fragmentBytes;
    }

    long sendAddress(final int slot)
    {
        return memory.address() + sendOffset(slot);
    }

    /** Offset of receive buffer {@code index} in {@link #view}. */
    int recvOffset(final int index)
    {
        return recvBase + index * fragmentBytes;
    }

    /** Native address of {@code offset} in the bounce area. */
    long bounceAddress(final int offset)
    {
        return memory.address() + bounceBase + offset;
    }

    /** {@code ibv_post_send} of the list that starts at send WR {@code firstSlot}; 0 or an errno. Caller serialises. */
    int postSend(final int firstSlot)
    {
        postSendArgs[1] = sendWrPointers[firstSlot];
        return ops.postSend(postSendArgs);
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
        postRecvArgs[1] = recvWrPointers[index];
        return ops.postRecv(postRecvArgs);
    }

    /**
     * Move the QP to ERR (flushing what is posted), destroy it and deregister the memory. Idempotent. The memory itself
     * stays valid until this object is unreachable, so a late completion that reads it cannot crash.
     */
    synchronized void release()
    {
        if (released)
        {
            return;
        }
        released = true;
        qp.toError();
        qp.destroy();
        LibIbverbs.ibv_dereg_mr(mr);
    }
}
