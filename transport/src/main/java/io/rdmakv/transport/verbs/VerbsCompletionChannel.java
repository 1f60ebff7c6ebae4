package io.rdmakv.transport.verbs;

import com.sun.jna.Pointer;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.event.ArmableEventSource;
import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.verbs.ffi.LibIbverbs;
import io.rdmakv.transport.verbs.ffi.NativeBlock;
import io.rdmakv.transport.verbs.ffi.VerbsLayout;
import io.rdmakv.transport.verbs.ffi.VerbsOps;

/**
 * A worker's {@code ibv_comp_channel}: its CQ is created on it, its fd is made non-blocking, and it is the
 * {@link ArmableEventSource} the worker's idle progress thread polls beside its eventfd.
 *
 * <pre>
 *   arm()            ibv_req_notify_cq(cq, 0)        (through ibv_context.ops, like poll_cq: inline in verbs.h)
 *   consumeEvents()  ibv_get_cq_event until EAGAIN; acknowledged in batches of ACK_BATCH (ibv_ack_cq_events
 *                    takes a mutex, and ibv_destroy_cq waits for every event to be acknowledged)
 *   close order      ackAll() -> ibv_destroy_cq (the worker) -> destroy() -> the worker's eventfd
 * </pre>
 * Progress thread only (or the closing thread under the worker's progress lock).
 */
final class VerbsCompletionChannel implements ArmableEventSource
{
    static final int ACK_BATCH = 64;

    private final VerbsOps ops;
    private final long channel;
    private final int fd;
    private final NativeBlock eventOut = new NativeBlock(16);
    private VerbsOps.ReqNotifyCq notifyCall;
    private long cq;
    private int unacked;
    private long events;
    /** ibv_req_notify_cq and ibv_get_cq_event calls (kernel calls on SoftRoCE); one writer: under the wait lock. */
    private volatile long systemCalls;
    private boolean destroyed;

    private VerbsCompletionChannel(final VerbsOps ops, final long channel, final int fd)
    {
        this.ops = ops;
        this.channel = channel;
        this.fd = fd;
    }

    /**
     * Create a channel on {@code device}, its fd non-blocking.
     *
     * @throws TransportException naming the call and errno when the channel cannot be created or made non-blocking.
     */
    static VerbsCompletionChannel create(final VerbsDevice device)
    {
        if (!device.ops.canNotify())
        {
            throw new TransportException("verbs provider of " + device.name + " has no req_notify_cq: use " +
                "verbs.idle=poll");
        }
        final long channel = LibIbverbs.ibv_create_comp_channel(device.context);
        if (channel == 0)
        {
            throw new TransportException("ibv_create_comp_channel failed: " +
                LibIbverbs.describeErrno(LibIbverbs.errno()));
        }
        final int fd = new Pointer(channel).getInt(VerbsLayout.COMP_CHANNEL_FD);
        final int rc = LibC.setNonBlocking(fd);
        if (rc != 0)
        {
            LibIbverbs.ibv_destroy_comp_channel(channel);
            throw new TransportException("fcntl(O_NONBLOCK) on completion channel fd " + fd + " failed: " +
                LibIbverbs.describeErrno(rc));
        }
        return new VerbsCompletionChannel(device.ops, channel, fd);
    }

    /** The {@code struct ibv_comp_channel *} to create the CQ on. */
    long address()
    {
        return channel;
    }

    /** The CQ created on this channel (once, before the first arm). */
    void attach(final long cq)
    {
        this.cq = cq;
        this.notifyCall = ops.reqNotifyCq(cq, 0);
    }

    @Override
    public int fd()
    {
        return fd;
    }

    @Override
    public void arm()
    {
        final int rc = notifyCall.arm();
        systemCalls++;
        if (rc != 0)
        {
            throw new TransportException("ibv_req_notify_cq failed: " + LibIbverbs.describeErrno(rc));
        }
    }

    @Override
    public int consumeEvents()
    {
        int n = 0;
        final long out = eventOut.address();
        while (ops.getCqEvent(channel, out, out + 8) == 0)
        {
            n++;
        }
        systemCalls += n + 1; // each event read, and the read that found none
        unacked += n;
        events += n;
        if (unacked >= ACK_BATCH)
        {
            ackAll();
        }
        return n;
    }

    /** Acknowledge every event taken so far; must run before the CQ is destroyed. */
    void ackAll()
    {
        if (unacked > 0)
        {
            ops.ackCqEvents(cq, unacked);
            unacked = 0;
        }
    }

    /** Events taken since creation. */
    long events()
    {
        return events;
    }

    /** Arms and event reads since creation: kernel calls (not on a NIC whose arm is a doorbell, counted anyway). */
    long systemCalls()
    {
        return systemCalls;
    }

    /** Destroy the channel: after every CQ on it. Idempotent. */
    void destroy()
    {
        if (!destroyed)
        {
            destroyed = true;
            final int rc = LibIbverbs.ibv_destroy_comp_channel(channel);
            if (rc != 0)
            {
                throw new TransportException("ibv_destroy_comp_channel failed: " + LibIbverbs.describeErrno(rc));
            }
        }
    }
}
