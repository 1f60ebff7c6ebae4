package io.rdmakv.transport.verbs.ffi;

import com.sun.jna.Function;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.rdmakv.transport.libc.NativeBindings;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * {@link VerbsOps} through JNA: the JDK 17 binding. Each bound call keeps its argument array ({@link Pointer}s made
 * once) and changes only the work-request slot in place.
 *
 * <p>Allocation: {@link Function#invokeInt(Object[])} copies the argument array and boxes the result on every call.
 * JNA's own dispatcher {@code Native.invokeInt(Function, long, int, Object[])} does neither; it is package-private,
 * so it is reached through a {@link MethodHandle} (the class path's unnamed module is open to us). When that is not
 * possible (a JNA without it, or JNA on the module path) the public, allocating call is used instead and
 * {@link #isAllocationFree()} says so.
 */
final class JnaVerbsOps extends VerbsOps
{
    private static final MethodHandle DISPATCH_INT = findDispatch();

    private final Function pollCq;
    private final Function reqNotifyCq;
    private final Function postSend;
    private final Function postRecv;

    JnaVerbsOps(final long pollCq, final long reqNotifyCq, final long postSend, final long postRecv,
        final long allocMw, final long deallocMw)
    {
        super(pollCq, reqNotifyCq, postSend, postRecv, allocMw, deallocMw);
        this.pollCq = Function.getFunction(new Pointer(pollCq), Function.C_CONVENTION);
        this.reqNotifyCq = reqNotifyCq == 0 ? null :
            Function.getFunction(new Pointer(reqNotifyCq), Function.C_CONVENTION);
        this.postSend = Function.getFunction(new Pointer(postSend), Function.C_CONVENTION);
        this.postRecv = Function.getFunction(new Pointer(postRecv), Function.C_CONVENTION);
    }

    static String resolveLibrary()
    {
        if (!LibIbverbs.isLoaded())
        {
            throw new IllegalStateException("JNA could not bind libibverbs: " + LibIbverbs.loadFailure(),
                LibIbverbs.loadFailure());
        }
        return NativeBindings.JNA + ": " + LibIbverbs.LIBRARY_NAME + " bound (ibv_get_cq_event, ibv_ack_cq_events, ...)";
    }

    @Override
    public String binding()
    {
        return NativeBindings.JNA;
    }

    @Override
    public boolean isAllocationFree()
    {
        return DISPATCH_INT != null;
    }

    @Override
    public PollCq pollCq(final long cq, final int numEntries, final long wcArray)
    {
        final Object[] args = {new Pointer(cq), numEntries, new Pointer(wcArray)};
        return () -> call(pollCq, pollCqAddress, args);
    }

    @Override
    public ReqNotifyCq reqNotifyCq(final long cq, final int solicitedOnly)
    {
        checkCanNotify();
        final Object[] args = {new Pointer(cq), solicitedOnly};
        return () -> call(reqNotifyCq, reqNotifyCqAddress, args);
    }

    @Override
    public Post postSend(final long qp, final long[] wrAddresses, final long badWrSlot)
    {
        return new JnaPost(postSend, postSendAddress, qp, wrAddresses, badWrSlot);
    }

    @Override
    public Post postRecv(final long qp, final long[] wrAddresses, final long badWrSlot)
    {
        return new JnaPost(postRecv, postRecvAddress, qp, wrAddresses, badWrSlot);
    }

    @Override
    public long allocMw(final long pd, final int type)
    {
        checkCanAllocateWindows();
        final Pointer mw = Function.getFunction(new Pointer(allocMwAddress), Function.C_CONVENTION)
            .invokePointer(new Object[] {new Pointer(pd), type});
        return Pointer.nativeValue(mw);
    }

    @Override
    public int deallocMw(final long mw)
    {
        checkCanAllocateWindows();
        return Function.getFunction(new Pointer(deallocMwAddress), Function.C_CONVENTION)
            .invokeInt(new Object[] {new Pointer(mw)});
    }

    @Override
    public int getCqEvent(final long channel, final long cqOut, final long cqContextOut)
    {
        return LibIbverbs.ibv_get_cq_event(channel, cqOut, cqContextOut);
    }

    @Override
    public void ackCqEvents(final long cq, final int nevents)
    {
        LibIbverbs.ibv_ack_cq_events(cq, nevents);
    }

    /** One QP's post: {@code {Pointer qp, Pointer wr, Pointer badWr}}, the middle one swapped per call. */
    private static final class JnaPost implements Post
    {
        private final Function function;
        private final long address;
        private final Pointer[] wrs;
        private final Object[] args;

        JnaPost(final Function function, final long address, final long qp, final long[] wrAddresses,
            final long badWrSlot)
        {
            this.function = function;
            this.address = address;
            this.wrs = new Pointer[wrAddresses.length];
            for (int i = 0; i < wrs.length; i++)
            {
                wrs[i] = new Pointer(wrAddresses[i]);
            }
            this.args = new Object[] {new Pointer(qp), wrs.length == 0 ? null : wrs[0], new Pointer(badWrSlot)};
        }

        @Override
        public int post(final int index)
        {
            args[1] = wrs[index];
            return call(function, address, args);
        }
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
