package io.rdmakv.transport.progress;

import org.agrona.concurrent.IdleStrategy;

import java.util.function.BooleanSupplier;

/**
 * The first two phases of a progress thread's idle strategy: spin {@link #SPINS} times, then yield {@link #YIELDS}
 * times, so work that arrives back to back (the next request of a client that just got its answer) is found without
 * a system call; after that, {@link #idleQuietly()} decides how to wait (a bounded park, or arm and block). Any
 * non-zero work count, or {@link #reset()}, starts over with spinning. Single-threaded, like the agent loop.
 *
 * <pre>
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

    private int spins;
    private int yields;
    private volatile BooleanSupplier skipSpinning = () -> false;

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

    @Override
    public final void idle()
    {
        if (spins == 0 && yields == 0 && skipSpinning.getAsBoolean())
        {
            spins = SPINS;
            yields = YIELDS;
        }
        if (spins < SPINS)
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

    /** Start over with spinning; subclasses reset their own phase too (and call this). */
    @Override
    public void reset()
    {
        spins = 0;
        yields = 0;
    }

    /** Past spinning and yielding: wait the subclass's way. */
    protected abstract void idleQuietly();
}
