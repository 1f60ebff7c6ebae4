package io.rdmakv.transport.libc;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@link LibcCalls} through FFM downcalls (JDK 22+): handles bound once, in static finals (the JIT inlines a constant
 * handle into the caller), pointers passed as {@code long} ({@code JAVA_LONG}: on LP64 a pointer argument travels in
 * the same register as a 64-bit integer, the convention {@link LibC} uses too), so a call allocates nothing.
 * {@code write} and {@code read} of a non-blocking eventfd and {@code epoll_wait} with timeout 0 cannot block or call
 * back: they are critical downcalls (no thread-state transition). {@code poll} blocks, so it is an ordinary downcall,
 * with {@code errno} captured into a segment of the calling thread's own.
 */
final class FfmLibcCalls implements LibcCalls
{
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ThreadLocal<MemorySegment> CALL_STATE =
        ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE));

    private static final MethodHandle WRITE = handle("write",
        FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
    private static final MethodHandle READ = handle("read",
        FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
    private static final MethodHandle EPOLL_WAIT = handle("epoll_wait",
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT), Linker.Option.critical(false));
    private static final MethodHandle POLL = handle("poll",
        FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), Linker.Option.captureCallState("errno"));

    private static final FfmLibcCalls INSTANCE = new FfmLibcCalls();

    private FfmLibcCalls()
    {
    }

    /** The binding; its class initialisation (every handle resolved) throws when FFM cannot be used here. */
    static FfmLibcCalls create()
    {
        return INSTANCE;
    }

    private static MethodHandle handle(final String name, final FunctionDescriptor descriptor,
        final Linker.Option... options)
    {
        final MemorySegment symbol = LIBC.find(name).orElseThrow(
            () -> new IllegalStateException("libc symbol " + name + " not found by the native linker's lookup"));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    @Override
    public String name()
    {
        return NativeBindings.FFM;
    }

    @Override
    public long eventfdWrite(final int fd, final long buf)
    {
        try
        {
            return (long)WRITE.invokeExact(fd, buf, 8L);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    @Override
    public long eventfdRead(final int fd, final long buf)
    {
        try
        {
            return (long)READ.invokeExact(fd, buf, 8L);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    @Override
    public int poll(final long fds, final long nfds, final int timeoutMillis)
    {
        try
        {
            return (int)POLL.invokeExact(CALL_STATE.get(), fds, nfds, timeoutMillis);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    @Override
    public int epollWaitNow(final int epfd, final long events, final int maxEvents)
    {
        try
        {
            return (int)EPOLL_WAIT.invokeExact(epfd, events, maxEvents, 0);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    @Override
    public int errno()
    {
        return (int)ERRNO.get(CALL_STATE.get(), 0L);
    }

    static RuntimeException rethrow(final Throwable t)
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
