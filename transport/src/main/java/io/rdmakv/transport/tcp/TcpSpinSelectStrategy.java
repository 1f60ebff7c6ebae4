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
 *
 * <p>A loop that hosts other workers ({@link Guests}, e.g. a shm worker progressed on a tcp node's request thread)
 * polls them at every decision, before its own sockets, and uses the longer of the two windows; when the window is
 * over it arms the guests (a producer must now wake this loop through a descriptor the loop watches) and polls them
 * once more before it blocks, so a message that landed before the arm is found by that poll and one after it wakes
 * the loop:
 * <pre>
 *   guests.poll() found work       -> window restarts (their callbacks ran here, inline)
 *   nothing, window over           -> guests.armAndPoll(): work ? CONTINUE : SELECT
 * </pre>
 * The strategy that decides for the calling loop is {@link #onThisLoop()} (set at its first decision, before the
 * loop runs any task).
 */
final class TcpSpinSelectStrategy implements SelectStrategy
{
    /** Workers progressed on this loop besides its channels. Loop thread only. */
    interface Guests
    {
        /** Poll every guest once (its callbacks run here); the work done. */
        int poll();

        /** Arm every guest's wake-up, then poll once more; the work done (0: the loop may block). */
        int armAndPoll();

        /** The longest polling window any guest asks for after work (ns). */
        long spinNanos();
    }

    private static final ThreadLocal<TcpSpinSelectStrategy> ON_THIS_LOOP = new ThreadLocal<>();

    private final long windowNanos;
    private long lastActiveNanos;
    private boolean bound;
    private Guests guests;

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

    /** The strategy of the event loop calling this (from a task on the loop), or null on another thread. */
    static TcpSpinSelectStrategy onThisLoop()
    {
        return ON_THIS_LOOP.get();
    }

    /** Poll {@code guests} too from now on (null: none). Loop thread. */
    void guests(final Guests guests)
    {
        this.guests = guests;
    }

    @Override
    public int calculateStrategy(final IntSupplier selectSupplier, final boolean hasTasks) throws Exception
    {
        if (!bound)
        {
            bound = true;
            ON_THIS_LOOP.set(this);
        }
        final Guests g = guests;
        final long window = g == null ? windowNanos : Math.max(windowNanos, g.spinNanos());
        if (window == 0 && g == null)
        {
            return hasTasks ? selectSupplier.get() : SelectStrategy.SELECT; // Netty's default
        }
        final int guestWork = g == null ? 0 : g.poll();
        final int ready = selectSupplier.get();
        final long now = System.nanoTime();
        if (ready > 0 || hasTasks || guestWork > 0)
        {
            lastActiveNanos = now;
            return ready;
        }
        if (now - lastActiveNanos < window)
        {
            Thread.onSpinWait();
            return SelectStrategy.CONTINUE;
        }
        if (g != null && g.armAndPoll() > 0)
        {
            lastActiveNanos = now;
            return SelectStrategy.CONTINUE;
        }
        return SelectStrategy.SELECT;
    }
}
