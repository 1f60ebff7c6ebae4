package io.rdmakv.transport.event;

import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.libc.LibCLayout;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for a verbs completion channel on machines without RDMA: a second eventfd. {@link #complete()} (any
 * thread) makes it readable as a completion event would make the channel's fd readable; {@link #arm()} is counted.
 */
final class EventFdSource implements ArmableEventSource, AutoCloseable
{
    final AtomicInteger arms = new AtomicInteger();
    private final int fd;
    private final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));

    EventFdSource()
    {
        fd = LibC.eventfd(0, LibCLayout.EFD_NONBLOCK | LibCLayout.EFD_CLOEXEC);
        if (fd < 0)
        {
            throw new IllegalStateException("eventfd failed: errno " + LibC.errno());
        }
        buffer.putLong(8, 1L);
    }

    /** One "completion event". */
    void complete()
    {
        LibC.write(fd, buffer.addressOffset() + 8, 8);
    }

    @Override
    public int fd()
    {
        return fd;
    }

    @Override
    public void arm()
    {
        arms.incrementAndGet();
    }

    @Override
    public int consumeEvents()
    {
        final long n = LibC.read(fd, buffer.addressOffset(), 8);
        return n == 8 ? (int)buffer.getLong(0) : 0;
    }

    @Override
    public void close()
    {
        LibC.close(fd);
    }
}
