package io.rdmakv.transport.verbs.ffi;

import io.rdmakv.transport.libc.NativeBindings;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@link VerbsOps} through FFM downcalls (JDK 22+). The ops calls are address-taking downcall handles, one per C
 * signature, in static finals (constants to the JIT); each bound call keeps the provider's function pointer as a
 * {@link MemorySegment} made once and its arguments as {@code long}s (on LP64 a pointer argument travels exactly as a
 * 64-bit integer, the convention the JNA binding uses too), so a call allocates nothing. {@code poll_cq},
 * {@code post_send}, {@code post_recv} and {@code req_notify_cq} neither block nor call back into Java (the provider
 * writes a queue and may ring a doorbell, a non-blocking system call on rxe): critical downcalls, without the
 * thread-state transition. {@code ibv_get_cq_event} reads a file descriptor and {@code ibv_ack_cq_events} takes a
 * mutex: ordinary downcalls, looked up in libibverbs.so.1 on first use.
 */
final class FfmVerbsOps extends VerbsOps
{
    private static final Linker LINKER = Linker.nativeLinker();
    /** {@code int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *)} */
    private static final MethodHandle POLL_CQ = LINKER.downcallHandle(
        FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG), Linker.Option.critical(false));
    /** {@code int (*req_notify_cq)(struct ibv_cq *, int)} */
    private static final MethodHandle REQ_NOTIFY_CQ = LINKER.downcallHandle(
        FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT), Linker.Option.critical(false));
    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)}, and post_recv's. */
    private static final MethodHandle POST = LINKER.downcallHandle(
        FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));

    /** {@code struct ibv_mw *(*alloc_mw)(struct ibv_pd *, enum ibv_mw_type)}: a system call, an ordinary downcall. */
    private static final MethodHandle ALLOC_MW = LINKER.downcallHandle(
        FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT));
    /** {@code int (*dealloc_mw)(struct ibv_mw *)}: a system call, an ordinary downcall. */
    private static final MethodHandle DEALLOC_MW = LINKER.downcallHandle(
        FunctionDescriptor.of(JAVA_INT, JAVA_LONG));

    private final MemorySegment pollCq;
    private final MemorySegment reqNotifyCq;
    private final MemorySegment postSend;
    private final MemorySegment postRecv;
    private final MemorySegment allocMw;
    private final MemorySegment deallocMw;

    FfmVerbsOps(final long pollCq, final long reqNotifyCq, final long postSend, final long postRecv,
        final long allocMw, final long deallocMw)
    {
        super(pollCq, reqNotifyCq, postSend, postRecv, allocMw, deallocMw);
        this.allocMw = MemorySegment.ofAddress(allocMw);
        this.deallocMw = MemorySegment.ofAddress(deallocMw);
        this.pollCq = MemorySegment.ofAddress(pollCq);
        this.reqNotifyCq = MemorySegment.ofAddress(reqNotifyCq);
        this.postSend = MemorySegment.ofAddress(postSend);
        this.postRecv = MemorySegment.ofAddress(postRecv);
    }

    /** Libibverbs' exported calls, resolved on first use (a host without it never gets here: no device opens). */
    private static final class Exported
    {
        static final String LIBRARY = "libibverbs.so.1";
        static final SymbolLookup LOOKUP = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
        /** {@code int ibv_get_cq_event(struct ibv_comp_channel *, struct ibv_cq **, void **)} */
        static final MethodHandle GET_CQ_EVENT = LINKER.downcallHandle(find("ibv_get_cq_event"),
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
        /** {@code void ibv_ack_cq_events(struct ibv_cq *, unsigned int)} */
        static final MethodHandle ACK_CQ_EVENTS = LINKER.downcallHandle(find("ibv_ack_cq_events"),
            FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT));

        private static MemorySegment find(final String name)
        {
            return LOOKUP.find(name).orElseThrow(
                () -> new IllegalStateException(name + " not found in " + LIBRARY));
        }
    }

    static String resolveLibrary()
    {
        return NativeBindings.FFM + ": " + Exported.LIBRARY + " ibv_get_cq_event " + Exported.GET_CQ_EVENT.type() +
            ", ibv_ack_cq_events " + Exported.ACK_CQ_EVENTS.type() + "; ops poll_cq " + POLL_CQ.type() +
            ", req_notify_cq " + REQ_NOTIFY_CQ.type() + ", post_send/post_recv " + POST.type();
    }

    @Override
    public String binding()
    {
        return NativeBindings.FFM;
    }

    @Override
    public boolean isAllocationFree()
    {
        return true;
    }

    @Override
    public PollCq pollCq(final long cq, final int numEntries, final long wcArray)
    {
        final MemorySegment function = pollCq;
        return () ->
        {
            try
            {
                return (int)POLL_CQ.invokeExact(function, cq, numEntries, wcArray);
            }
            catch (final Throwable t)
            {
                throw rethrow(t);
            }
        };
    }

    @Override
    public ReqNotifyCq reqNotifyCq(final long cq, final int solicitedOnly)
    {
        checkCanNotify();
        final MemorySegment function = reqNotifyCq;
        return () ->
        {
            try
            {
                return (int)REQ_NOTIFY_CQ.invokeExact(function, cq, solicitedOnly);
            }
            catch (final Throwable t)
            {
                throw rethrow(t);
            }
        };
    }

    @Override
    public Post postSend(final long qp, final long[] wrAddresses, final long badWrSlot)
    {
        return new FfmPost(postSend, qp, wrAddresses.clone(), badWrSlot);
    }

    @Override
    public Post postRecv(final long qp, final long[] wrAddresses, final long badWrSlot)
    {
        return new FfmPost(postRecv, qp, wrAddresses.clone(), badWrSlot);
    }

    @Override
    public long allocMw(final long pd, final int type)
    {
        checkCanAllocateWindows();
        try
        {
            return (long)ALLOC_MW.invokeExact(allocMw, pd, type);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    @Override
    public int deallocMw(final long mw)
    {
        checkCanAllocateWindows();
        try
        {
            return (int)DEALLOC_MW.invokeExact(deallocMw, mw);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    @Override
    public int getCqEvent(final long channel, final long cqOut, final long cqContextOut)
    {
        try
        {
            return (int)Exported.GET_CQ_EVENT.invokeExact(channel, cqOut, cqContextOut);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    @Override
    public void ackCqEvents(final long cq, final int nevents)
    {
        try
        {
            Exported.ACK_CQ_EVENTS.invokeExact(cq, nevents);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    private record FfmPost(MemorySegment function, long qp, long[] wrs, long badWr) implements Post
    {
        @Override
        public int post(final int index)
        {
            try
            {
                return (int)POST.invokeExact(function, qp, wrs[index], badWr);
            }
            catch (final Throwable t)
            {
                throw rethrow(t);
            }
        }
    }

    private static RuntimeException rethrow(final Throwable t)
    {
        if (t instanceof RuntimeException r)
        {
            throw r;
        }
        if (t instanceof Error e)
        {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
