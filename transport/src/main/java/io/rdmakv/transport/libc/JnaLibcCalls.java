package io.rdmakv.transport.libc;

/** {@link LibcCalls} through JNA's direct mapping ({@link LibC}): the JDK 17 binding, and the fallback on 22+. */
final class JnaLibcCalls implements LibcCalls
{
    static final JnaLibcCalls INSTANCE = new JnaLibcCalls();

    private JnaLibcCalls()
    {
    }

    @Override
    public String name()
    {
        return NativeBindings.JNA;
    }

    @Override
    public long eventfdWrite(final int fd, final long buf)
    {
        return LibC.write(fd, buf, 8);
    }

    @Override
    public long eventfdRead(final int fd, final long buf)
    {
        return LibC.read(fd, buf, 8);
    }

    @Override
    public int poll(final long fds, final long nfds, final int timeoutMillis)
    {
        return LibC.poll(fds, nfds, timeoutMillis);
    }

    @Override
    public int epollWaitNow(final int epfd, final long events, final int maxEvents)
    {
        return LibC.epoll_wait(epfd, events, maxEvents, 0);
    }

    @Override
    public int errno()
    {
        return LibC.errno();
    }
}
