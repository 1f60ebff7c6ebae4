package io.rdmakv.transport.verbs.ffi;

import com.sun.jna.Pointer;

/**
 * {@code ibv_poll_cq}, {@code ibv_req_notify_cq}, {@code ibv_post_send} and {@code ibv_post_recv}, which verbs.h
 * defines as {@code static inline} calls through the provider's function pointers in {@code ibv_context.ops}, and the
 * completion channel's {@code ibv_get_cq_event} / {@code ibv_ack_cq_events}. The pointers are read once per opened
 * device ({@code req_notify_cq} may be missing: then {@link #canNotify()} is false and workers must poll). The
 * memory-window calls {@code ibv_alloc_mw} / {@code ibv_dealloc_mw} are inline too and dispatched the same way
 * ({@link #allocMw}, {@link #deallocMw}); a provider without them leaves the pointers empty
 * ({@link #canAllocateWindows()}).
 *
 * <p>Each data-path call is bound once to the native memory its caller prepared (a CQ and its completion array, a QP
 * and its work requests) and then invoked with nothing but, for a post, the index of the first work request: no
 * marshalling, no allocation per call. Two bindings implement it, chosen once per process by
 * {@link io.rdmakv.transport.libc.NativeBindings}: JNA ({@code JnaVerbsOps}, every JDK) and FFM ({@code FfmVerbsOps},
 * JDK 22+, in the jar's {@code META-INF/versions/22}; critical downcalls). Both read the same offsets,
 * {@link VerbsLayout}, checked against verbs.h by {@code VerbsLayoutTest}.
 */
public abstract class VerbsOps
{
    /** {@code ibv_poll_cq(cq, num_entries, wc)} bound to its three arguments. */
    public interface PollCq
    {
        /** @return completions written, or a negative value on error. */
        int poll();
    }

    /** {@code ibv_req_notify_cq(cq, solicited_only)} bound to its two arguments. */
    public interface ReqNotifyCq
    {
        /** @return 0 or an errno value. */
        int arm();
    }

    /** {@code ibv_post_send} or {@code ibv_post_recv} bound to its QP, its work requests and its {@code bad_wr} slot. */
    public interface Post
    {
        /**
         * Post the list that starts at work request {@code index} (of the addresses given when binding).
         *
         * @return 0 or an errno value.
         */
        int post(int index);
    }

    protected final long pollCqAddress;
    protected final long reqNotifyCqAddress;
    protected final long postSendAddress;
    protected final long postRecvAddress;
    protected final long allocMwAddress;
    protected final long deallocMwAddress;

    protected VerbsOps(final long pollCq, final long reqNotifyCq, final long postSend, final long postRecv,
        final long allocMw, final long deallocMw)
    {
        this.pollCqAddress = pollCq;
        this.reqNotifyCqAddress = reqNotifyCq;
        this.postSendAddress = postSend;
        this.postRecvAddress = postRecv;
        this.allocMwAddress = allocMw;
        this.deallocMwAddress = deallocMw;
    }

    /**
     * Read the four function pointers out of an opened {@code struct ibv_context}, bound in the process's binding.
     *
     * @throws IllegalStateException if the context is null or the provider left a pointer empty.
     */
    public static VerbsOps of(final long context)
    {
        if (context == 0)
        {
            throw new IllegalStateException("ibv_context is NULL");
        }
        final Pointer ctx = new Pointer(context);
        final long poll = Pointer.nativeValue(ctx.getPointer(VerbsLayout.CONTEXT_OPS_POLL_CQ));
        final long notify = Pointer.nativeValue(ctx.getPointer(VerbsLayout.CONTEXT_OPS_REQ_NOTIFY_CQ));
        final long send = Pointer.nativeValue(ctx.getPointer(VerbsLayout.CONTEXT_OPS_POST_SEND));
        final long recv = Pointer.nativeValue(ctx.getPointer(VerbsLayout.CONTEXT_OPS_POST_RECV));
        final long allocMw = Pointer.nativeValue(ctx.getPointer(VerbsLayout.CONTEXT_OPS_ALLOC_MW));
        final long deallocMw = Pointer.nativeValue(ctx.getPointer(VerbsLayout.CONTEXT_OPS_DEALLOC_MW));
        if (poll == 0 || send == 0 || recv == 0)
        {
            throw new IllegalStateException("provider left ibv_context.ops empty: poll_cq=0x" + Long.toHexString(poll) +
                " post_send=0x" + Long.toHexString(send) + " post_recv=0x" + Long.toHexString(recv));
        }
        return VerbsBindings.ops(poll, notify, send, recv, allocMw, deallocMw);
    }

    /**
     * Resolve every handle the process's binding needs from libibverbs.so.1 (the exported completion-channel calls;
     * the ops calls need only the device's pointers) and say which: for tests and diagnostics.
     *
     * @throws IllegalStateException (or a linkage error) naming what did not resolve.
     */
    public static String resolveExported()
    {
        return VerbsBindings.resolveExported();
    }

    /** {@code "FFM"} or {@code "JNA"}. */
    public abstract String binding();

    /** True when the provider implements {@code req_notify_cq}, so a completion channel can wake a worker. */
    public boolean canNotify()
    {
        return reqNotifyCqAddress != 0;
    }

    /** True when the provider implements {@code alloc_mw} and {@code dealloc_mw} (memory windows). */
    public boolean canAllocateWindows()
    {
        return allocMwAddress != 0 && deallocMwAddress != 0;
    }

    /**
     * {@code ibv_alloc_mw(pd, type)}: a memory window of {@code type} ({@link VerbsLayout#MW_TYPE_2}) in the
     * protection domain. Control path (a system call): never on the data path.
     *
     * @return the {@code struct ibv_mw *}, or 0 when the provider refused (errno is not captured).
     * @throws IllegalStateException when the provider has no {@code alloc_mw} ({@link #canAllocateWindows()}).
     */
    public abstract long allocMw(long pd, int type);

    /**
     * {@code ibv_dealloc_mw(mw)}: frees the window; a bound window is invalidated with it.
     *
     * @return 0 or an errno value.
     */
    public abstract int deallocMw(long mw);

    protected final void checkCanAllocateWindows()
    {
        if (!canAllocateWindows())
        {
            throw new IllegalStateException("the verbs provider has no alloc_mw/dealloc_mw (no memory windows)");
        }
    }

    /** True when a call allocates nothing (FFM always; JNA when its allocation-free dispatcher is reachable). */
    public abstract boolean isAllocationFree();

    /** Bind {@code ibv_poll_cq(cq, numEntries, wcArray)}. */
    public abstract PollCq pollCq(long cq, int numEntries, long wcArray);

    /**
     * Bind {@code ibv_req_notify_cq(cq, solicitedOnly)}.
     *
     * @throws IllegalStateException when the provider has no {@code req_notify_cq} ({@link #canNotify()}).
     */
    public abstract ReqNotifyCq reqNotifyCq(long cq, int solicitedOnly);

    /** Bind {@code ibv_post_send(qp, wrAddresses[index], badWrSlot)}; the array is copied. */
    public abstract Post postSend(long qp, long[] wrAddresses, long badWrSlot);

    /** Bind {@code ibv_post_recv(qp, wrAddresses[index], badWrSlot)}; the array is copied. */
    public abstract Post postRecv(long qp, long[] wrAddresses, long badWrSlot);

    /**
     * {@code int ibv_get_cq_event(struct ibv_comp_channel *, struct ibv_cq **cq, void **cq_context)}: with the
     * channel's fd non-blocking, -1 when there is no event.
     */
    public abstract int getCqEvent(long channel, long cqOut, long cqContextOut);

    /** {@code void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)}: takes a lock; call it in batches. */
    public abstract void ackCqEvents(long cq, int nevents);

    protected final void checkCanNotify()
    {
        if (reqNotifyCqAddress == 0)
        {
            throw new IllegalStateException("the verbs provider has no req_notify_cq");
        }
    }
}
