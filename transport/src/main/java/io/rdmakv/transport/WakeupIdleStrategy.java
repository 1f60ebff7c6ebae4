package io.rdmakv.transport;

/**
 * The idle strategy of an {@link ProgressModel#ARMABLE} worker's progress thread: spin, then yield (back-to-back
 * requests stay cheap), then arm the worker's {@link WorkerWakeup} and let the agent loop poll once more, and only
 * when that poll found nothing too, block in the kernel until a completion, a signal or the worker's housekeeping
 * bound ({@link WorkerWakeup#maxBlockNanos()}).
 *
 * <pre>
 *   idle(0) x SPINS    Thread.onSpinWait()
 *   idle(0) x YIELDS   Thread.yield()
 *   idle(0)            wakeup.arm()                   then the loop runs worker.doWork() + duty.doWork() once more
 *   idle(0)            wakeup.await(maxBlockNanos)    armed, and that last poll found nothing: block
 *   idle(n > 0)        reset (the next idle spins again; the arm, if any, is spent or harmless)
 * </pre>
 *
 * <p>No lost completion (the arm/arrival race): a completion that lands before {@code arm()} is in the completion
 * queue when the loop polls after the arm, so that poll finds it and the thread does not block; one that lands after
 * {@code arm()} raises an event that makes the wait return (an event already raised when the wait starts makes it
 * return at once). A completion that lands between the poll and the wait is therefore covered by the arm. Work from
 * other threads comes with {@link WorkerWakeup#signal()}, whose race with the block is closed by the wake-up itself
 * (see {@link io.rdmakv.transport.event.EventFdWakeup}). Any non-zero work count starts over with spinning, so a
 * wait is only ever entered right after an armed, empty poll.
 *
 * <p>{@link #stopBlocking()} (when the progress is being closed) makes every later idle return without blocking, so
 * the agent loop sees its stop flag within one cycle.
 */
public final class WakeupIdleStrategy extends SpinYieldIdleStrategy
{
    private final WorkerWakeup wakeup;
    private volatile boolean stopped;
    private boolean armed;

    public WakeupIdleStrategy(final WorkerWakeup wakeup)
    {
        this.wakeup = wakeup;
    }

    /** From now on never block: the progress is closing. Wakes a blocked idler. Any thread. */
    public void stopBlocking()
    {
        stopped = true;
        wakeup.signal();
    }

    @Override
    protected void idleQuietly()
    {
        if (!armed)
        {
            wakeup.arm();
            armed = true;
        }
        else if (stopped)
        {
            Thread.yield();
        }
        else
        {
            wakeup.await(wakeup.maxBlockNanos());
            // Whatever ended the wait, poll before blocking again; re-arm only after the poll comes back empty.
            armed = false;
        }
    }

    @Override
    public void reset()
    {
        super.reset();
        armed = false;
    }

    @Override
    public String alias()
    {
        return "spin-yield-arm-wait";
    }
}
