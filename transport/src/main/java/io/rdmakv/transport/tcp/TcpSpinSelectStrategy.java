package io.rdmakv.transport.tcp;

import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;

/**
 * The event loops' idle policy: poll (non-blocking {@code epoll_wait}) for a short window after the last I/O or task,
 * then block in the kernel. A request-response peer's next message usually lands within that window, so it is read
 * without a wake-up (and a task from another thread, e.g. a caller's send, needs no eventfd write while the loop
 * spins); an idle loop costs at most one window of CPU per burst. Property {@code tcp.spinMicros} (0 = always block,
 * Netty's default behaviour).
 *
 * <pre>
 *   tasks queued          -> poll now, run them             (Netty's default)
 *   poll found events     -> process them, window restarts
 *   nothing, in window    -> CONTINUE (spin: run tasks, poll again)
 *   nothing, window over  -> SELECT (block until I/O, a task's wake-up or a timer)
 * </pre>
 */
final class TcpSpinSelectStrategy implements SelectStrategy
{
    private final long windowNanos;
    private long lastActiveNanos;

    private TcpSpinSelectStrategy(final long windowNanos)
    {
        this.windowNanos = windowNanos;
    }

    /** One strategy per event loop (each keeps its own window). */
    static SelectStrategyFactory factory(final long windowNanos)
    {
        if (windowNanos < 0)
        {
            throw new IllegalArgumentException("spin window must not be negative: " + windowNanos + " ns");
        }
        return () -> new TcpSpinSelectStrategy(windowNanos);
    }

    @Override
    public int calculateStrategy(final IntSupplier selectSupplier, final boolean hasTasks) throws Exception
    {
        if (windowNanos == 0)
        {
            return hasTasks ? selectSupplier.get() : SelectStrategy.SELECT; // Netty's default
        }
        final int ready = selectSupplier.get();
        final long now = System.nanoTime();
        if (ready > 0 || hasTasks)
        {
            lastActiveNanos = now;
            return ready;
        }
        if (now - lastActiveNanos < windowNanos)
        {
            Thread.onSpinWait();
            return SelectStrategy.CONTINUE;
        }
        return SelectStrategy.SELECT;
    }
}
