package io.rdmakv.transport.progress;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;

import java.util.concurrent.locks.ReentrantLock;

/**
 * One duty cycle of a polled worker ({@code worker.doWork(); duty.doWork()}) under a lock, so that the progress
 * thread and application threads that drive progress themselves while they wait (UCX's {@code ucp_worker_progress}
 * from the application's thread) never run a cycle at the same time.
 *
 * <pre>
 *   progress thread (AgentRunner):  loop { doWork(): lock() ; cycle ; unlock()   idle (spin, yield, arm, block) }
 *   a waiting caller:               tryCycle():      tryLock() ? cycle ; unlock() : 0 (someone else is cycling)
 *   closing (onClose, progress thread): lock() ; closed = true ; worker.onClose() ; duty.onClose() ; unlock()
 * </pre>
 *
 * <p>The progress thread takes the lock blocking and callers only try it, for the sake of the arm/poll/block protocol
 * of an ARMABLE worker ({@link WakeupIdleStrategy}): its "poll once more after the arm" must really poll. Were it to
 * skip that poll because a caller held the lock, a completion that landed before the arm, and that the caller's
 * cycle (already past its poll) did not take, would raise no event and wait in the completion queue until the
 * housekeeping timeout: a lost wake-up. Blocking for the lock costs the progress thread at most one caller cycle,
 * and the poll it then runs sees every completion that landed before the arm (the caller took some, or none). A
 * caller never blocks on the lock: when the progress thread (or another caller) is cycling, the caller's request is
 * being driven anyway.
 *
 * <p>While a thread holds the lock it is the progress thread ({@link #isCycling()}): callbacks and future completions
 * run on it, and a nested {@link #tryCycle()} from inside a callback returns 0 without running a cycle.
 */
final class LockedDutyCycle implements Agent
{
    /** {@link #tryCycle()}: the cycle cannot run any more (closed). */
    static final int CLOSED = -1;
    /**
     * A caller that ran a cycle this recently counts as driving ({@link #callersActive()}): longer than the gap between
     * a synchronous caller's back-to-back requests, shorter than any idle period worth spinning through.
     */
    static final long CALLERS_ACTIVE_NANOS = 1_000_000;

    private final Agent worker;
    private final Agent duty;
    private final ErrorHandler errors;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean closed;
    private volatile long callerCycles;
    private volatile long lastCallerCycleNanos = System.nanoTime() - CALLERS_ACTIVE_NANOS;

    LockedDutyCycle(final Agent worker, final Agent duty, final ErrorHandler errors)
    {
        this.worker = worker;
        this.duty = duty;
        this.errors = errors;
    }

    @Override
    public void onStart()
    {
        worker.onStart();
        duty.onStart();
    }

    /** The progress thread's cycle: waits for a caller's cycle to end, never skips. */
    @Override
    public int doWork() throws Exception
    {
        lock.lock();
        try
        {
            return closed ? 0 : worker.doWork() + duty.doWork();
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * One cycle on the calling thread if no other thread is in one. What the worker or the duty throws goes to the
     * error handler, as on the progress thread: the caller's own request completes (or times out) as usual.
     *
     * @return the work done, 0 when another thread was cycling (or this one already is: a nested call), or
     *         {@link #CLOSED}.
     */
    int tryCycle()
    {
        if (closed)
        {
            return CLOSED;
        }
        if (lock.isHeldByCurrentThread() || !lock.tryLock())
        {
            return 0;
        }
        try
        {
            if (closed)
            {
                return CLOSED;
            }
            callerCycles++;
            lastCallerCycleNanos = System.nanoTime();
            return worker.doWork() + duty.doWork();
        }
        catch (final Throwable t)
        {
            errors.onError(t);
            return 1;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** True while the calling thread runs a cycle (it is then the progress thread). */
    boolean isCycling()
    {
        return lock.isHeldByCurrentThread();
    }

    /**
     * True when a caller ran a cycle within {@link #CALLERS_ACTIVE_NANOS}: callers are driving, so an idle progress
     * thread need not spin nor arm (it waits unarmed for at most this long and looks again: a completion no caller
     * takes is found then, a signal ends the wait at once).
     */
    boolean callersActive()
    {
        return System.nanoTime() - lastCallerCycleNanos < CALLERS_ACTIVE_NANOS;
    }

    /** Cycles run by callers rather than the progress thread (diagnostics and tests; read without the lock). */
    long callerCycles()
    {
        return callerCycles;
    }

    /** Closes the worker then the duty, after any caller's cycle; later cycles do nothing. Progress thread. */
    @Override
    public void onClose()
    {
        lock.lock();
        try
        {
            closed = true;
            try
            {
                worker.onClose();
            }
            finally
            {
                duty.onClose();
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public String roleName()
    {
        return "[" + worker.roleName() + "," + duty.roleName() + "]"; // as CompositeAgent named it (the thread's name)
    }
}
