package io.rdmakv.transport.conformance;

import org.agrona.concurrent.Agent;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The duty of a conformance peer's progress: does nothing until a test {@link #hold() holds} it; then the progress
 * thread parks in it, after its worker's poll and before the next one, until {@link #release() released}. With the
 * initiator held, a test can let several events reach it (a device completion, the loss of a side channel) and then
 * let its worker see them all in one cycle: the interleaving that decides which one wins, forced instead of hoped for.
 */
public final class ProgressGate implements Agent
{
    private static final long MAX_HOLD_SECONDS = 30;

    private volatile boolean held;
    private volatile CountDownLatch parked = new CountDownLatch(1);
    private volatile Thread waiter;

    /**
     * Hold the progress thread at its next duty call and wait until it is parked there.
     *
     * @param wake makes a sleeping progress thread run a cycle (its progress's signal).
     */
    public void hold(final Runnable wake) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(MAX_HOLD_SECONDS);
        while (waiter != null) // still leaving an earlier hold
        {
            if (deadline - System.nanoTime() < 0)
            {
                throw new AssertionError("the progress thread never left the gate");
            }
            Thread.yield();
        }
        parked = new CountDownLatch(1);
        held = true;
        wake.run();
        if (!parked.await(MAX_HOLD_SECONDS, TimeUnit.SECONDS))
        {
            throw new AssertionError("the progress thread never reached the gate");
        }
    }

    /**
     * Returns once the progress thread has run a whole cycle that started after this call: whatever was handed to
     * its worker before (a task, a callback) has run by then.
     */
    public void awaitFullCycle(final Runnable wake) throws InterruptedException
    {
        for (int i = 0; i < 2; i++)
        {
            hold(wake);
            release();
        }
    }

    /** Let the progress thread go on. */
    public void release()
    {
        held = false;
        final Thread t = waiter;
        if (t != null)
        {
            LockSupport.unpark(t);
        }
    }

    @Override
    public int doWork()
    {
        if (!held)
        {
            return 0;
        }
        waiter = Thread.currentThread();
        parked.countDown();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(MAX_HOLD_SECONDS);
        while (held && deadline - System.nanoTime() > 0)
        {
            LockSupport.parkNanos(this, deadline - System.nanoTime());
        }
        held = false;
        waiter = null;
        return 1;
    }

    @Override
    public void onClose()
    {
        release();
    }

    @Override
    public String roleName()
    {
        return "progress-gate";
    }
}
