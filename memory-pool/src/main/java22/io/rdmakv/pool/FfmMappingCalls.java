package io.rdmakv.pool;

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
 * {@link MappingCalls} through FFM downcalls (JDK 22+): handles in static finals, addresses as {@code long} (LP64),
 * {@code errno} captured into a segment of the calling thread's own. None is critical: {@code mlock} and a populating
 * {@code mmap} fault pages in and may take long; these calls run when an arena is mapped or closed, not per operation.
 */
final class FfmMappingCalls implements MappingCalls
{
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ThreadLocal<MemorySegment> CALL_STATE =
        ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE));

    private static final MethodHandle MMAP = handle("mmap",
        FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = handle("munmap", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle MLOCK = handle("mlock", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle MUNLOCK = handle("munlock", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle MADVISE = handle("madvise",
        FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));

    private static final FfmMappingCalls INSTANCE = new FfmMappingCalls();

    private FfmMappingCalls()
    {
    }

    static FfmMappingCalls create()
    {
        return INSTANCE;
    }

    private static MethodHandle handle(final String name, final FunctionDescriptor descriptor)
    {
        final MemorySegment symbol = LIBC.find(name).orElseThrow(
            () -> new IllegalStateException("libc symbol " + name + " not found by the native linker's lookup"));
        return LINKER.downcallHandle(symbol, descriptor, Linker.Option.captureCallState("errno"));
    }

    @Override
    public String name()
    {
        return MappingBindings.FFM;
    }

    @Override
    public long mmap(final long length, final int prot, final int flags, final int fd, final long offset)
    {
        try
        {
            return (long)MMAP.invokeExact(CALL_STATE.get(), 0L, length, prot, flags, fd, offset);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    @Override
    public int munmap(final long addr, final long length)
    {
        try
        {
            return (int)MUNMAP.invokeExact(CALL_STATE.get(), addr, length);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    @Override
    public int mlock(final long addr, final long length)
    {
        try
        {
            return (int)MLOCK.invokeExact(CALL_STATE.get(), addr, length);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    @Override
    public int munlock(final long addr, final long length)
    {
        try
        {
            return (int)MUNLOCK.invokeExact(CALL_STATE.get(), addr, length);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    @Override
    public int madvise(final long addr, final long length, final int advice)
    {
        try
        {
            return (int)MADVISE.invokeExact(CALL_STATE.get(), addr, length, advice);
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
