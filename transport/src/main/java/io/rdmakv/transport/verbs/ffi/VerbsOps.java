package io.rdmakv.transport.verbs.ffi;

import com.sun.jna.Function;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * {@code ibv_poll_cq}, {@code ibv_req_notify_cq}, {@code ibv_post_send} and {@code ibv_post_recv}, which verbs.h
 * defines as {@code static inline} calls through the provider's function pointers in {@code ibv_context.ops}. The pointers are read once per opened
 * device ({@code req_notify_cq} may be missing: then {@link #canNotify()} is false and workers must poll); each
 * call passes only pointers to native memory that the caller prepared once and changes in place.
 *
 * <p>Allocation: {@link Function#invokeInt(Object[])} copies the argument array and boxes the result on every call.
 * JNA's own dispatcher {@code Native.invokeInt(Function, long, int, Object[])} does neither; it is package-private,
 * so it is reached through a {@link MethodHandle} (the class path's unnamed module is open to us). When that is not
 * possible (a JNA without it, or JNA on the module path) the public, allocating call is used instead and
 * {@link #isAllocationFree()} says so.
 */
public final class VerbsOps
{
    private static final MethodHandle DISPATCH_INT = findDispatch();

    private final Function pollCq;
    private final Function reqNotifyCq;
    private final Function postSend;
    private final Function postRecv;
    private final long pollCqAddress;
    private final long reqNotifyCqAddress;
    private final long postSendAddress;
    private final long postRecvAddress;

    private VerbsOps(final long pollCq, final long reqNotifyCq, final long postSend, final long postRecv)
    {
        this.pollCqAddress = pollCq;
        this.reqNotifyCqAddress = reqNotifyCq;
        this.postSendAddress = postSend;
        this.postRecvAddress = postRecv;
        this.pollCq = Function.getFunction(new Pointer(pollCq), Function.C_CONVENTION);
        this.reqNotifyCq = reqNotifyCq == 0 ? null :
            Function.getFunction(new Pointer(reqNotifyCq), Function.C_CONVENTION);
        this.postSend = Function.getFunction(new Pointer(postSend), Function.C_CONVENTION);
        this.postRecv = Function.getFunction(new Pointer(postRecv), Function.C_CONVENTION);
    }

    /**
     * Read the four function pointers out of an opened {@code struct ibv_context}.
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
        if (poll == 0 || send == 0 || recv == 0)
        {
            throw new IllegalStateException("provider left ibv_context.ops empty: poll_cq=0x" + Long.toHexString(poll) +
                " post_send=0x" + Long.toHexString(send) + " post_recv=0x" + Long.toHexString(recv));
        }
        return new VerbsOps(poll, notify, send, recv);
    }

    /** True when the provider implements {@code req_notify_cq}, so a completion channel can wake a worker. */
    public boolean canNotify()
    {
        return reqNotifyCq != null;
    }

    /** True when calls go through JNA's dispatcher without allocating. */
    public static boolean isAllocationFree()
    {
        return DISPATCH_INT != null;
    }

    /**
     * {@code int ibv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)}.
     *
     * @param args {@code {Pointer cq, Integer numEntries, Pointer wcArray}}, kept by the caller and reused.
     * @return completions written, or a negative value on error.
     */
    public int pollCq(final Object[] args)
    {
        return call(pollCq, pollCqAddress, args);
    }

    /**
     * {@code int ibv_req_notify_cq(struct ibv_cq *cq, int solicited_only)}: one event on the CQ's channel at its next
     * completion.
     *
     * @param args {@code {Pointer cq, Integer solicitedOnly}}, kept by the caller and reused.
     * @return 0 or an errno value.
     * @throws IllegalStateException when the provider has no {@code req_notify_cq} ({@link #canNotify()}).
     */
    public int reqNotifyCq(final Object[] args)
    {
        if (reqNotifyCq == null)
        {
            throw new IllegalStateException("the verbs provider has no req_notify_cq");
        }
        return call(reqNotifyCq, reqNotifyCqAddress, args);
    }

    /**
     * {@code int ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)}.
     *
     * @param args {@code {Pointer qp, Pointer firstWr, Pointer badWrSlot}}; the caller may change {@code args[1]}.
     * @return 0 or an errno value.
     */
    public int postSend(final Object[] args)
    {
        return call(postSend, postSendAddress, args);
    }

    /** {@code int ibv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)}. */
    public int postRecv(final Object[] args)
    {
        return call(postRecv, postRecvAddress, args);
    }

    private static int call(final Function function, final long address, final Object[] args)
    {
        if (DISPATCH_INT != null)
        {
            try
            {
                return (int)DISPATCH_INT.invokeExact(function, address, Function.C_CONVENTION, args);
            }
            catch (final RuntimeException | Error e)
            {
                throw e;
            }
            catch (final Throwable t)
            {
                throw new IllegalStateException(t);
            }
        }
        return function.invokeInt(args);
    }

    private static MethodHandle findDispatch()
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(Native.class, MethodHandles.lookup());
            return lookup.findStatic(Native.class, "invokeInt",
                MethodType.methodType(int.class, Function.class, long.class, int.class, Object[].class));
        }
        catch (final ReflectiveOperationException | RuntimeException e)
        {
            return null;
        }
    }
}
