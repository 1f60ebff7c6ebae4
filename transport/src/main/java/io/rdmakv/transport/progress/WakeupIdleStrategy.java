package io.rdmakv.transport.progress;

import io.rdmakv.transport.WorkerWakeup;

/**
 * The idle strategy of an {@link io.rdmakv.transport.ProgressModel#ARMABLE} worker's progress thread: poll for the
 * worker's {@link WorkerWakeup#spinNanos() window}, spin, then yield (back-to-back requests stay cheap), then arm
 * the worker's {@link WorkerWakeup} and let the agent loop poll once more, and only
 * when that poll found nothing too, block in the kernel until a completion, a signal or the current bound, which
 * starts at {@link WorkerWakeup#maxBlockNanos()} and doubles with every wait that times out with nothing to do, up
 * to {@link WorkerWakeup#maxIdleBlockNanos()}.
 *
 * <pre>
 *   idle(0) ...        Thread.onSpinWait() until wakeup.spinNanos() after the last work
 *   idle(0) x SPINS    Thread.onSpinWait()
 *   idle(0) x YIELDS   Thread.yield()
 *   idle(0)            wakeup.arm()                   then the loop runs worker.doWork() + duty.doWork() once more
 *   idle(0)            wakeup.await(bound)            armed, and that last poll found nothing: block
 *                        woken (event or signal)   -> bound = maxBlockNanos; re-arm after the next empty poll
 *                        timed out                 -> bound = min(2 x bound, maxIdleBlockNanos); still armed: after
 *                                                     the next empty poll block again without arming
 *   idle(n > 0)        reset (the next idle spins again; bound = maxBlockNanos; the arm, if any, is spent or
 *                      harmless)
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
 * <p>Why a timed-out wait needs no new arm: an arm asks for ONE event at the next completion, and a wait that timed
 * out saw no event, so no completion has consumed the arm: the source is still armed (a completion that lands after
 * the timeout raises the event, which the poll in between or the next wait sees). A wait that ended any other way
 * (an event, a signal, closing) re-arms after the next empty poll, as before. That saves one call into the provider
 * ({@code ibv_req_notify_cq}) per idle cycle.
 *
 * <p>While callers drive the worker ({@link io.rdmakv.transport.WorkerProgress#tryProgress()}, a caller cycle within
 * the last millisecond) the thread neither spins nor arms: it waits unarmed for at most that millisecond and looks
 * again, so the completions the callers poll for raise no event for it (on shm: the peer writing an answer finds no
 * parked mark and makes no system call), and it arms as usual once they stop.
 *
 * <p>{@link #stopBlocking()} (when the progress is being closed) makes every later idle return without blocking, so
 * the agent loop sees its stop flag within one cycle.
 */
public final class WakeupIdleStrategy extends SpinYieldIdleStrategy
{
    /** The longest unarmed wait while callers drive: how long a caller cycle counts as driving. */
    static final long CALLERS_WAIT_NANOS = LockedDutyCycle.CALLERS_ACTIVE_NANOS;

    private final WorkerWakeup wakeup;
    private final long minBlockNanos;
    private final long maxBlockNanos;
    private volatile boolean stopped;
    private boolean armed;
    private long blockNanos;

    public WakeupIdleStrategy(final WorkerWakeup wakeup)
    {
        this.wakeup = wakeup;
        this.minBlockNanos = wakeup.maxBlockNanos();
        this.maxBlockNanos = Math.max(minBlockNanos, wakeup.maxIdleBlockNanos());
        this.blockNanos = minBlockNanos;
        spinWindow(wakeup.spinNanos());
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
        if (!stopped && callersDrive())
        {
            // Callers poll for their own completions: an armed worker would have every answer wake this thread for
            // nothing (and, on shm, cost the peer that writes it a system call). Wait unarmed for at most as long as
            // callers count as driving, then look again; re-arm before the first wait once they stop.
            wakeup.await(CALLERS_WAIT_NANOS);
            armed = false;
            return;
        }
        if (!armed)
        {
            wakeup.arm();
            armed = true;
        }
        else if (stopped)
        {
            Thread.yield();
        }
        else if (wakeup.await(blockNanos))
        {
            // Woken: poll before blocking again; re-arm only after that poll comes back empty.
            armed = false;
            blockNanos = minBlockNanos;
        }
        else
        {
            // Timed out with nothing to do: still armed; wait longer next time (the loop polls once in between).
            blockNanos = Math.min(blockNanos << 1, maxBlockNanos);
        }
    }

    @Override
    public void reset()
    {
        super.reset();
        armed = false;
        blockNanos = minBlockNanos;
    }

    /** The bound the next wait will be given (tests). */
    long nextBlockNanos()
    {
        return blockNanos;
    }

    @Override
    public String alias()
    {
        return "spin-yield-arm-wait";
    }
}
