package io.rdmakv.transport.event;

import io.rdmakv.transport.WorkerWakeup;
import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.libc.LibCLayout;
import io.rdmakv.transport.libc.LibcCalls;
import io.rdmakv.transport.libc.NativeBindings;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link WorkerWakeup} over an eventfd and {@code poll(2)}: the progress thread blocks in one {@code poll} on
 * {the eventfd, the source's fd}; other threads write the eventfd to wake it. The fds and the {@code pollfd} array
 * are set up once; a wait is one {@code poll} plus one {@code read} per fd that fired, a signal to a running progress
 * thread is one volatile store and one volatile load (no system call).
 *
 * <pre>
 *   native block (64 bytes, allocated once)
 *    0            8            16           24
 *   +------------+------------+------------+------------------+
 *   | pollfd[0]  | pollfd[1]  | read buf   | write buf = 1    |
 *   | eventfd    | source fd  | (progress) | (any thread)     |
 *   +------------+------------+------------+------------------+
 * </pre>
 *
 * <p>No lost wake-up between a signal and a block (a Dekker pair of volatile flags, as in
 * {@link io.rdmakv.transport.progress.SignalledIdleStrategy}): a signaller hands its work over, sets {@code signalled}, then
 * reads {@code blocking} and writes the eventfd only when it is set; the progress thread sets {@code blocking}, then
 * reads {@code signalled} and calls {@code poll} only when it is clear. Both orders are sequentially consistent, so
 * either the progress thread sees the signal and does not block, or the signaller sees {@code blocking} and writes
 * the eventfd, whose counter stays non-zero until it is read: a {@code poll} that starts after the write returns at
 * once (level-triggered). The progress thread clears {@code signalled} only after the wait, before it polls the
 * worker again, so the work handed over is found by that poll; a signal that lands after the clear leaves the flag
 * set and the next wait returns at once. A write that found the thread already awake costs one spurious, immediate
 * return of a later wait, never a lost one.
 *
 * <p>Closing: {@link #close()} closes the eventfd under this object's monitor, and a signaller writes under the same
 * monitor after checking it is open, so a late signal never writes to a closed (or reused) descriptor. The source's
 * fd belongs to the source; its owner closes it, after the last {@link #await}.
 */
public final class EventFdWakeup implements WorkerWakeup, AutoCloseable
{
    private static final int POLLFD_EVENTFD = 0;
    private static final int READ_BUF = 16;
    private static final int WRITE_BUF = 24;
    /** The data-path calls (signal's write, await's poll and read) in the binding chosen for the process. */
    private static final LibcCalls CALLS = NativeBindings.libc();

    private final ArmableEventSource source;
    private final long maxBlockNanos;
    private final long maxIdleBlockNanos;
    private final long spinNanos;
    private final int eventFd;
    private final UnsafeBuffer block;
    private final long pollFds;
    private final int pollFdCount;
    private volatile boolean blocking;
    private volatile boolean signalled;
    private volatile boolean closed;
    private volatile long wakeups;
    private volatile long signalWakeups;
    private volatile long sourceWakeups;
    private volatile long sourceEvents;
    /** poll, read and write calls on the eventfd (signal() writes from any thread). */
    private final LongAdder systemCalls = new LongAdder();
    /** Set once when another thread's event loop hosts this wake-up (see {@link #hostBy}). */
    private volatile Runnable hostSignal;

    /**
     * A wake-up with no idle back-off: every wait blocks at most {@code maxBlockNanos}.
     *
     * @param source        the armable source polled beside the eventfd, or {@code null} for signals alone.
     * @param maxBlockNanos the longest a wait may block (see {@link #maxBlockNanos()}).
     * @throws IllegalStateException when libc cannot be bound or {@code eventfd} fails (with the errno).
     */
    public EventFdWakeup(final ArmableEventSource source, final long maxBlockNanos)
    {
        this(source, maxBlockNanos, maxBlockNanos);
    }

    /**
     * @param source            the armable source polled beside the eventfd, or {@code null} for signals alone.
     * @param maxBlockNanos     the first wait's bound after work (see {@link #maxBlockNanos()}).
     * @param maxIdleBlockNanos the longest any wait may block (see {@link #maxIdleBlockNanos()}), at least
     *                          {@code maxBlockNanos}.
     * @throws IllegalStateException when libc cannot be bound or {@code eventfd} fails (with the errno).
     */
    public EventFdWakeup(final ArmableEventSource source, final long maxBlockNanos, final long maxIdleBlockNanos)
    {
        this(source, maxBlockNanos, maxIdleBlockNanos, 0);
    }

    /**
     * @param source            the armable source polled beside the eventfd, or {@code null} for signals alone.
     * @param maxBlockNanos     the first wait's bound after work (see {@link #maxBlockNanos()}).
     * @param maxIdleBlockNanos the longest any wait may block (see {@link #maxIdleBlockNanos()}), at least
     *                          {@code maxBlockNanos}.
     * @param spinNanos         the idle progress thread's polling window after work ({@link #spinNanos()}), 0 for none.
     * @throws IllegalStateException when libc cannot be bound or {@code eventfd} fails (with the errno).
     */
    public EventFdWakeup(final ArmableEventSource source, final long maxBlockNanos, final long maxIdleBlockNanos,
        final long spinNanos)
    {
        if (spinNanos < 0)
        {
            throw new IllegalArgumentException("spinNanos must not be negative: " + spinNanos);
        }
        this.spinNanos = spinNanos;
        if (maxBlockNanos <= 0)
        {
            throw new IllegalArgumentException("maxBlockNanos must be positive: " + maxBlockNanos);
        }
        if (maxIdleBlockNanos < maxBlockNanos)
        {
            throw new IllegalArgumentException("maxIdleBlockNanos (" + maxIdleBlockNanos + ") must be at least " +
                "maxBlockNanos (" + maxBlockNanos + ")");
        }
        this.maxIdleBlockNanos = maxIdleBlockNanos;
        if (!LibC.isLoaded())
        {
            throw new IllegalStateException("libc could not be bound through JNA: " + LibC.loadFailure(),
                LibC.loadFailure());
        }
        this.source = source;
        this.maxBlockNanos = maxBlockNanos;
        this.eventFd = LibC.eventfd(0, LibCLayout.EFD_NONBLOCK | LibCLayout.EFD_CLOEXEC);
        if (eventFd < 0)
        {
            throw new IllegalStateException("eventfd failed: errno " + LibC.errno());
        }
        this.block = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
        this.pollFds = block.addressOffset();
        this.pollFdCount = source == null ? 1 : 2;
        block.putInt(POLLFD_EVENTFD * LibCLayout.SIZEOF_POLLFD + LibCLayout.POLLFD_FD, eventFd);
        block.putShort(POLLFD_EVENTFD * LibCLayout.SIZEOF_POLLFD + LibCLayout.POLLFD_EVENTS,
            (short)LibCLayout.POLLIN);
        if (source != null)
        {
            block.putInt(LibCLayout.SIZEOF_POLLFD + LibCLayout.POLLFD_FD, source.fd());
            block.putShort(LibCLayout.SIZEOF_POLLFD + LibCLayout.POLLFD_EVENTS, (short)LibCLayout.POLLIN);
        }
        block.putLong(WRITE_BUF, 1L);
    }

    /** The eventfd (for diagnostics). */
    public int eventFd()
    {
        return eventFd;
    }

    @Override
    public void signal()
    {
        signalled = true;
        final Runnable host = hostSignal;
        if (host != null)
        {
            host.run();
        }
        else if (blocking)
        {
            synchronized (this)
            {
                if (!closed)
                {
                    CALLS.eventfdWrite(eventFd, pollFds + WRITE_BUF);
                    systemCalls.increment();
                }
            }
        }
    }

    @Override
    public void arm()
    {
        if (source != null && !closed)
        {
            source.arm();
        }
    }

    @Override
    public boolean await(final long timeoutNanos)
    {
        if (closed)
        {
            LockSupport.parkNanos(Math.min(timeoutNanos, maxIdleBlockNanos));
            return false;
        }
        blocking = true;
        if (signalled)
        {
            blocking = false;
            signalled = false;
            return true;
        }
        clearRevents();
        final int n = CALLS.poll(pollFds, pollFdCount, timeoutMillis(Math.min(timeoutNanos, maxIdleBlockNanos)));
        systemCalls.increment();
        final int errno = n < 0 ? CALLS.errno() : 0;
        blocking = false;
        wakeups++;
        boolean woken = false;
        if (n < 0 && errno != LibCLayout.EINTR)
        {
            throw new IllegalStateException("poll on eventfd " + eventFd + " failed: errno " + errno);
        }
        if (n > 0)
        {
            final int eventRevents = revents(POLLFD_EVENTFD);
            if ((eventRevents & LibCLayout.POLLIN) != 0)
            {
                CALLS.eventfdRead(eventFd, pollFds + READ_BUF);
                systemCalls.increment();
                signalWakeups++;
                woken = true;
            }
            if (source != null)
            {
                final int sourceRevents = revents(1);
                if ((sourceRevents & LibCLayout.POLLIN) != 0)
                {
                    sourceEvents += source.consumeEvents();
                    sourceWakeups++;
                    woken = true;
                }
                checkRevents("source fd " + source.fd(), sourceRevents);
            }
            checkRevents("eventfd " + eventFd, eventRevents);
        }
        signalled = false;
        return woken || n < 0;
    }

    private void clearRevents()
    {
        block.putShort(LibCLayout.POLLFD_REVENTS, (short)0);
        block.putShort(LibCLayout.SIZEOF_POLLFD + LibCLayout.POLLFD_REVENTS, (short)0);
    }

    private int revents(final int index)
    {
        return block.getShort(index * LibCLayout.SIZEOF_POLLFD + LibCLayout.POLLFD_REVENTS) & 0xFFFF;
    }

    private static void checkRevents(final String what, final int revents)
    {
        if ((revents & (LibCLayout.POLLERR | LibCLayout.POLLHUP | LibCLayout.POLLNVAL)) != 0)
        {
            throw new IllegalStateException("poll reports " + what + " broken (revents 0x" +
                Integer.toHexString(revents) + ")");
        }
    }

    private static int timeoutMillis(final long nanos)
    {
        return (int)Math.max(1, Math.min(Integer.MAX_VALUE, (nanos + 999_999) / 1_000_000));
    }

    @Override
    public int[] hostedFds()
    {
        return source == null ? new int[] {eventFd} : new int[] {eventFd, source.fd()};
    }

    /** Whether another thread's event loop hosts this wake-up ({@link #hostBy} was called). */
    public boolean isHosted()
    {
        return hostSignal != null;
    }

    @Override
    public void hostBy(final Runnable signal)
    {
        if (signal == null)
        {
            throw new IllegalArgumentException("hostSignal must not be null");
        }
        hostSignal = signal;
    }

    @Override
    public void consumeHostedEvents()
    {
        if (closed)
        {
            return;
        }
        // Non-blocking eventfd: EAGAIN when a peer did not write it, 8 bytes (reset to 0) when one did.
        final long read = CALLS.eventfdRead(eventFd, pollFds + READ_BUF);
        systemCalls.increment();
        if (read == 8)
        {
            signalWakeups++;
        }
        if (source != null)
        {
            sourceEvents += source.consumeEvents();
        }
        signalled = false;
    }

    @Override
    public long spinNanos()
    {
        return spinNanos;
    }

    @Override
    public long maxBlockNanos()
    {
        return maxBlockNanos;
    }

    @Override
    public long maxIdleBlockNanos()
    {
        return maxIdleBlockNanos;
    }

    @Override
    public long wakeups()
    {
        return wakeups;
    }

    /** True from just before a wait blocks until it returns (tests wait for it before they signal). */
    public boolean isBlocking()
    {
        return blocking;
    }

    /** System calls this wake-up made: poll(2), and read(2) / write(2) of its eventfd (not the source's calls). */
    public long systemCalls()
    {
        return systemCalls.sum();
    }

    /** Waits ended by the eventfd (a signal). */
    public long signalWakeups()
    {
        return signalWakeups;
    }

    /** Waits ended by the source's fd (a completion event). */
    public long sourceWakeups()
    {
        return sourceWakeups;
    }

    /** Events the source consumed in waits. */
    public long sourceEvents()
    {
        return sourceEvents;
    }

    /** Close the eventfd; later signals are ignored and waits only sleep their bound. Idempotent. */
    @Override
    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            LibC.close(eventFd);
        }
    }
}
