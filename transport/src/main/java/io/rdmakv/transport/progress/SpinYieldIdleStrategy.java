package io.rdmakv.transport.progress;

import org.agrona.concurrent.IdleStrategy;

import java.util.function.BooleanSupplier;

/**
 * The first phases of a progress thread's idle strategy: poll for a time window after the last work (when one is
 * set), spin {@link #SPINS} times, then yield {@link #YIELDS} times, so work that arrives back to back (the next
 * request of a client that just got its answer) is found without a system call; after that, {@link #idleQuietly()}
 * decides how to wait (a bounded park, or arm and block). Any non-zero work count, or {@link #reset()}, starts over.
 * Single-threaded, like the agent loop. The window is time, not a count: what it must cover is a peer's turnaround
 * (microseconds), and a count of cycles lasts as long as the cycles do.
 *
 * <pre>
 *   idle(0) ...        Thread.onSpinWait() until the window (from the first idle after work) is over
 *   idle(0) x SPINS    Thread.onSpinWait()
 *   idle(0) x YIELDS   Thread.yield()
 *   idle(0) ...        idleQuietly()          (the subclass: park, arm, block)
 *   idle(n > 0)        reset()
 * </pre>
 * While {@link #skipSpinningWhen the given condition} holds (callers are driving the worker's progress themselves,
 * see {@link WorkerProgress#tryProgress()}), the spins and yields are skipped: those callers poll for their own work,
 * and a progress thread spinning beside them would only take the cycle lock from under them.
 */
abstract class SpinYieldIdleStrategy implements IdleStrategy
{
    static final int SPINS = 100;
    static final int YIELDS = 10;

    private long windowNanos;
    private boolean windowStarted;
    private long windowStartNanos;
    private int spins;
    private int yields;
    private volatile BooleanSupplier skipSpinning = () -> false;

    /** Whether callers drive the worker now (the condition given to {@link #skipSpinningWhen}). */
    protected final boolean callersDrive()
    {
        return skipSpinning.getAsBoolean();
    }

    /** Skip spinning and yielding while {@code condition} holds (checked once per idle period). Before the start. */
    void skipSpinningWhen(final BooleanSupplier condition)
    {
        this.skipSpinning = condition;
    }

    @Override
    public final void idle(final int workCount)
    {
        if (workCount > 0)
        {
            reset();
        }
        else
        {
            idle();
        }
    }

    /** Poll for {@code nanos} after the last work before the spins (0: no window). Before the start. */
    void spinWindow(final long nanos)
    {
        if (nanos < 0)
        {
            throw new IllegalArgumentException("spin window must not be negative: " + nanos);
        }
        this.windowNanos = nanos;
    }

    @Override
    public final void idle()
    {
        if (!windowStarted && spins == 0 && yields == 0 && skipSpinning.getAsBoolean())
        {
            windowStarted = true;
            windowStartNanos = System.nanoTime() - windowNanos;
            spins = SPINS;
            yields = YIELDS;
        }
        if (windowNanos > 0 && inWindow())
        {
            Thread.onSpinWait();
        }
        else if (spins < SPINS)
        {
            spins++;
            Thread.onSpinWait();
        }
        else if (yields < YIELDS)
        {
            yields++;
            Thread.yield();
        }
        else
        {
            idleQuietly();
        }
    }

    /** Whether the window since the first idle after work still runs (starts it at the first call). */
    private boolean inWindow()
    {
        final long now = System.nanoTime();
        if (!windowStarted)
        {
            windowStarted = true;
            windowStartNanos = now;
            return true;
        }
        return now - windowStartNanos < windowNanos;
    }

    /** Start over with the window and spinning; subclasses reset their own phase too (and call this). */
    @Override
    public void reset()
    {
        windowStarted = false;
        spins = 0;
        yields = 0;
    }

    /** Past spinning and yielding: wait the subclass's way. */
    protected abstract void idleQuietly();
}
