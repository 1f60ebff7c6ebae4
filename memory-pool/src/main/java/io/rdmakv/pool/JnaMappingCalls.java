package io.rdmakv.pool;

import com.sun.jna.Native;

/** {@link MappingCalls} through JNA ({@link LibC}): the JDK 17 binding, and the fallback on 22+. */
final class JnaMappingCalls implements MappingCalls
{
    static final JnaMappingCalls INSTANCE = new JnaMappingCalls();

    private JnaMappingCalls()
    {
    }

    @Override
    public String name()
    {
        return MappingBindings.JNA;
    }

    @Override
    public long mmap(final long length, final int prot, final int flags, final int fd, final long offset)
    {
        return LibC.INSTANCE.mmap(null, length, prot, flags, fd, offset);
    }

    @Override
    public int munmap(final long addr, final long length)
    {
        return LibC.INSTANCE.munmap(addr, length);
    }

    @Override
    public int mlock(final long addr, final long length)
    {
        return LibC.INSTANCE.mlock(addr, length);
    }

    @Override
    public int munlock(final long addr, final long length)
    {
        return LibC.INSTANCE.munlock(addr, length);
    }

    @Override
    public int madvise(final long addr, final long length, final int advice)
    {
        return LibC.INSTANCE.madvise(addr, length, advice);
    }

    @Override
    public int errno()
    {
        return Native.getLastError();
    }
}
