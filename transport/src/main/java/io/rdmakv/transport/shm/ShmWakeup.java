package io.rdmakv.transport.shm;

import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.event.ArmableEventSource;
import io.rdmakv.transport.event.EventFdWakeup;
import io.rdmakv.transport.libc.LibCLayout;
import io.rdmakv.transport.libc.LibcCalls;
import io.rdmakv.transport.libc.NativeBindings;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * How an idle shm worker sleeps and who wakes it. The worker blocks in {@code poll(2)} on its eventfd
 * ({@link EventFdWakeup}) and on an epoll instance holding its listening and control sockets (a connection, a MAP
 * answer or a peer's death wakes it). Peers wake it for data: before blocking the worker marks each inbound ring
 * "parked" in the shared header; a producer that finds the mark after writing a record clears it and writes the
 * worker's eventfd, whose descriptor it received in the handshake. While the worker is busy the mark is clear, so a
 * send costs the producer one load and no system call.
 * <pre>
 *   consumer (this worker): parked = 1; poll the rings once more; nothing? block      (the arm, then the last poll)
 *   producer (a peer):      write record; parked == 1 ? (CAS 1 -> 0) write(eventfd) : nothing
 * </pre>
 * A record written before the mark is found by the poll after it; one written after it sees the mark.
 */
final class ShmWakeup implements ArmableEventSource, AutoCloseable
{
    /** The data-path libc calls in the binding chosen for the process (JNA or FFM). */
    private static final LibcCalls CALLS = NativeBindings.libc();
    private final int epollFd;
    /** epoll_wait's output (the blocking thread) and epoll_ctl's input (a duty cycle): two threads, two buffers. */
    private final UnsafeBuffer events = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
        LibCLayout.SIZEOF_EPOLL_EVENT * 64, 64));
    private final UnsafeBuffer control = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
    private final EventFdWakeup wakeup;
    private volatile ShmRings[] inbound = new ShmRings[0];
    private volatile boolean controlReady;

    ShmWakeup(final long maxBlockNanos, final long maxIdleBlockNanos, final long spinNanos)
    {
        epollFd = LibC.epoll_create1(LibCLayout.EPOLL_CLOEXEC);
        if (epollFd < 0)
        {
            throw new IllegalStateException("shm: epoll_create1 failed, errno " + LibC.errno());
        }
        wakeup = new EventFdWakeup(this, maxBlockNanos, maxIdleBlockNanos, spinNanos);
    }

    EventFdWakeup wakeup()
    {
        return wakeup;
    }

    /** The eventfd peers write to wake this worker. */
    int eventFd()
    {
        return wakeup.eventFd();
    }

    /** Watch {@code fd} (a listening or control socket) while blocked. */
    void watch(final int fd)
    {
        control.putInt(0, LibCLayout.EPOLLIN);
        control.putLong(4, fd);
        LibC.epoll_ctl(epollFd, LibCLayout.EPOLL_CTL_ADD, fd, control.addressOffset());
    }

    void unwatch(final int fd)
    {
        LibC.epoll_ctl(epollFd, LibCLayout.EPOLL_CTL_DEL, fd, control.addressOffset());
    }

    /** The rings whose inbound side this worker reads (progress thread; read by arm()). */
    synchronized void inboundRings(final ShmRings[] rings)
    {
        inbound = rings;
    }

    @Override
    public int fd()
    {
        return epollFd;
    }

    /**
     * Mark every inbound ring parked. Synchronized with {@link #inboundRings}: the worker unmaps a connection's rings
     * only after publishing a set without them, so no arm or disarm touches unmapped memory.
     */
    @Override
    public synchronized void arm()
    {
        for (final ShmRings r : inbound)
        {
            r.markInboundParked();
        }
    }

    /** A cycle found work: producers need not wake this worker until it parks again. */
    synchronized void disarm()
    {
        for (final ShmRings r : inbound)
        {
            r.clearInboundParked();
        }
    }

    /**
     * Readiness is level-triggered and the worker reads the sockets itself: empty the ready list and have the next
     * cycle read them ({@link #takeControlReady}), rather than at its next millisecond.
     */
    @Override
    public int consumeEvents()
    {
        final int n = Math.max(0, CALLS.epollWaitNow(epollFd, events.addressOffset(), 64));
        if (n > 0)
        {
            controlReady = true;
        }
        return n;
    }

    /** Whether a socket was readable since the last call (the worker then reads its sockets this cycle). */
    boolean takeControlReady()
    {
        if (controlReady)
        {
            controlReady = false;
            return true;
        }
        return false;
    }

    @Override
    public void close()
    {
        wakeup.close();
        LibC.close(epollFd);
    }
}
