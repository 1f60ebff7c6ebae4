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
 * polls them at every decision, before its own sockets, and keeps polling for the guests' window after activity that
 * followed a guest's work (its request, then the duty cycle that answers it); when no window runs it arms the guests
 * (a producer must now wake this loop through a descriptor the loop watches) and polls them once more before it
 * blocks, so a message that landed before the arm is found by that poll and one after it wakes the loop:
 * <pre>
 *   guests.poll() found work       -> window restarts (their callbacks ran here, inline)
 *   nothing, in the guests' window -> CONTINUE (spin)
 *   nothing, window over           -> up to GUEST_YIELDS times Thread.yield() and CONTINUE, then
 *                                     guests.armAndPoll(): work ? CONTINUE : SELECT
 *   no task, no window (tcp.spinMicros 0) and outside the guests' window and yields
 *                                  -> guests.poll(), then straight to armAndPoll / SELECT: no non-blocking
 *                                     epoll_wait before the blocking one (that was one more per loop turn)
 * </pre>
 * <p>The loop's {@link TcpProgressDriver} runs the duty cycle a cycle that found work owes ("more may be waiting")
 * here, at the next decision, before the loop polls or blocks ({@link OwedCycle}), instead of as a scheduled task:
 * a scheduled task made every turn that found work cost one more non-blocking {@code epoll_wait} before the cycle
 * that usually finds nothing.
 * <pre>
 *   cycle owed -> run it: work (or tasks left) ? non-blocking poll, then the tasks : the decision below
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

        /** When the loop's last duty cycle that found work ended ({@link System#nanoTime()}): an answer written. */
        long lastCycleWorkNanos();
    }

    /** The duty cycle of the loop's driver, owed by a cycle that found work (more may be waiting). Loop thread only. */
    interface OwedCycle
    {
        /**
         * Run the cycle if one is owed; nonzero when it did work or left tasks to run (the loop must not block before
         * running them), 0 when none was owed or it found nothing.
         */
        int runOwed();
    }

    /** Yields after the guests' window before arming (as {@code SpinYieldIdleStrategy} does after its spins). */
    static final int GUEST_YIELDS = 10;
    private static final ThreadLocal<TcpSpinSelectStrategy> ON_THIS_LOOP = new ThreadLocal<>();

    private final long windowNanos;
    private long lastActiveNanos;
    private long lastGuestActiveNanos;
    private int guestYields;
    private boolean bound;
    private Guests guests;
    private OwedCycle owed;

    /**
     * How long before its creation a strategy's guests count as last active: "never" for any window. Not 0: nanoTime
     * counts from an arbitrary origin (on Linux the boot), so on a host up for less than a guest's window a zero
     * would put the loop in that window after plain tcp traffic.
     */
    private static final long NEVER_NANOS = Long.MAX_VALUE / 4;

    private TcpSpinSelectStrategy(final long windowNanos)
    {
        this.windowNanos = windowNanos;
        this.lastGuestActiveNanos = System.nanoTime() - NEVER_NANOS;
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

    /**
     * The guests' window: {@code guestSpin} after the last activity, if that activity came within {@code guestSpin} of
     * a guest's work (the answer to a guest's request, written by a later duty cycle, counts; tcp traffic alone does
     * not make the loop spin for its guests).
     */
    private boolean inGuestWindow(final long now, final Guests g)
    {
        final long guestSpin = g.spinNanos();
        final long cycled = g.lastCycleWorkNanos();
        final long last = cycled - lastActiveNanos > 0 ? cycled : lastActiveNanos;
        return now - last < guestSpin && last - lastGuestActiveNanos < guestSpin;
    }

    /**
     * Run {@code cycle}'s owed duty cycles at this loop's decisions from now on (null: none); false when another one
     * already does (that driver's cycles stay scheduled tasks). Loop thread.
     */
    boolean owedCycles(final OwedCycle cycle)
    {
        if (cycle != null && owed != null && owed != cycle)
        {
            return false;
        }
        owed = cycle;
        return true;
    }

    /** Stop running {@code cycle}'s owed cycles, if this loop runs them. Loop thread. */
    void noOwedCycles(final OwedCycle cycle)
    {
        if (owed == cycle)
        {
            owed = null;
        }
    }

    /** Whether the loop may spin or yield for its guests now (see the class); false without guests. */
    private boolean inGuestWindowOrYields(final Guests g)
    {
        if (g == null)
        {
            return false;
        }
        return inGuestWindow(System.nanoTime(), g) ||
            guestYields < GUEST_YIELDS && lastActiveNanos - lastGuestActiveNanos < g.spinNanos();
    }

    @Override
    public int calculateStrategy(final IntSupplier selectSupplier, final boolean hasTasks) throws Exception
    {
        if (!bound)
        {
            bound = true;
            ON_THIS_LOOP.set(this);
        }
        final OwedCycle o = owed;
        if (o != null && o.runOwed() > 0)
        {
            // It did work (answers may wait as tasks): poll the sockets without blocking, then run the tasks; the
            // next decision runs the cycle it owes in turn, so neither starves the other.
            lastActiveNanos = System.nanoTime();
            guestYields = 0;
            return selectSupplier.get();
        }
        final Guests g = guests;
        if (windowNanos == 0 && g == null)
        {
            return hasTasks ? selectSupplier.get() : SelectStrategy.SELECT; // Netty's default
        }
        final int guestWork = g == null ? 0 : g.poll();
        if (!hasTasks && guestWork == 0 && windowNanos == 0 && !inGuestWindowOrYields(g))
        {
            // Nothing to run and no window to spin in: block at once. A non-blocking poll first would only add an
            // epoll_wait per loop turn (two per request on a node hosting shm); the blocking one returns at once
            // when a socket is ready.
            if (g.armAndPoll() > 0)
            {
                lastActiveNanos = System.nanoTime();
                return SelectStrategy.CONTINUE;
            }
            return SelectStrategy.SELECT;
        }
        final int ready = selectSupplier.get();
        final long now = System.nanoTime();
        if (guestWork > 0)
        {
            lastGuestActiveNanos = now;
        }
        if (ready > 0 || hasTasks || guestWork > 0)
        {
            lastActiveNanos = now;
            guestYields = 0;
            return ready;
        }
        if (now - lastActiveNanos < windowNanos || g != null && inGuestWindow(now, g))
        {
            Thread.onSpinWait();
            return SelectStrategy.CONTINUE;
        }
        if (g != null && guestYields < GUEST_YIELDS && lastActiveNanos - lastGuestActiveNanos < g.spinNanos())
        {
            // After the window, as an ARMABLE worker's own thread does: let the peer's threads have this core a few
            // times (on a small host they share it) before arming and blocking.
            guestYields++;
            Thread.yield();
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
