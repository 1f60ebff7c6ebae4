package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.transport.WorkerProgress;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of an asynchronous call (and of every stage made from it) whose blocking waits drive the client's
 * progress, as a synchronous call does ({@link RequestSlots#await}; UCX's request wait calling
 * {@code ucp_worker_progress}): a thread in {@link #get()}, {@link #get(long, TimeUnit)} or {@link #join()} polls
 * the worker itself, so its answer is taken and the future completed on that thread, with no wake-up of the progress
 * thread and no unpark of the waiter. Without that, one request in flight paid two thread hand-offs per answer.
 * <pre>
 *   get / join, not done, a driver and a place in the {@link CallerDriveBudget}, not on the progress thread:
 *     0 .. WAIT_SPIN_NANOS        driver.tryProgress(); Thread.onSpinWait()
 *     .. CALLER_YIELD_NANOS       driver.tryProgress(); Thread.yield()
 *     then (or done, or the get's timeout)                           CompletableFuture's own wait (park)
 *   no driver (tcp) or tryProgress() == -1, a place in the budget, the client's only request in flight:
 *     .. RequestSlots.WAIT_YIELD_NANOS  Thread.yield()   the progress thread completes it, no unpark; then park
 * </pre>
 * Stages ({@code thenApply}, {@code whenComplete}, ...) are futures of this class too ({@link #newIncompleteFuture}),
 * so waiting on a stage drives as well. Completion, callbacks and results are CompletableFuture's, unchanged.
 *
 * @param <T> the result.
 */
class DrivenFuture<T> extends CompletableFuture<T>
{
    /**
     * The default of {@link #WAIT_SPIN_NANOS}, in us: an RPC's answer over shm (2-3 us) and a PUT's (the RocksDB
     * write, 7-10 us, plus that) come within it on a quiet host. Shorter than a synchronous call's 1 ms on purpose:
     * an async caller waiting on a slower answer (a loaded host) must let the threads that produce it have the core;
     * with the synchronous 1 ms, one PUT in flight over shm at load 3-5 had a p90 of 1.1 ms.
     */
    static final int DEFAULT_WAIT_SPIN_MICROS = 20;
    /**
     * How long a waiter busy-polls before it polls between yields ({@value #DEFAULT_WAIT_SPIN_MICROS} us unless the
     * JVM property {@code rdmakv.client.waitSpinMicros} says otherwise).
     */
    static final long WAIT_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(Integer.getInteger(
        "rdmakv.client.waitSpinMicros", DEFAULT_WAIT_SPIN_MICROS));

    private final Drive drive;

    /**
     * Who drives a waiting caller: the client's progress when callers may drive it (null: waits only park), the
     * budget of callers that drive at once, and the counters a caller's own completion is counted in.
     */
    record Drive(WorkerProgress driver, CallerDriveBudget budget, ClientCounters counters, long spinNanos,
        long yieldNanos, java.util.function.BooleanSupplier alone)
    {
        /** Waits park, as a plain CompletableFuture's do. */
        static final Drive NONE = new Drive(null, CallerDriveBudget.SHARED, null, 0, 0, () -> false);
    }

    DrivenFuture(final Drive drive)
    {
        this.drive = drive;
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture()
    {
        return new DrivenFuture<>(drive);
    }

    @Override
    public T get() throws InterruptedException, ExecutionException
    {
        drive(Long.MAX_VALUE);
        return super.get();
    }

    @Override
    public T get(final long timeout, final TimeUnit unit) throws InterruptedException, ExecutionException,
        TimeoutException
    {
        final long start = System.nanoTime();
        final long nanos = unit.toNanos(timeout);
        drive(nanos);
        return super.get(Math.max(0, nanos - (System.nanoTime() - start)), TimeUnit.NANOSECONDS);
    }

    @Override
    public T join()
    {
        drive(Long.MAX_VALUE);
        return super.join();
    }

    /**
     * Drive the client's progress while this future is not done, for at most {@code maxNanos} (see the class); where
     * callers cannot drive it (tcp), yield for up to the drive's {@code yieldNanos} ({@link RequestSlots#WAIT_YIELD_NANOS})
     * instead, so an answer the
     * progress thread completes meanwhile needs no unpark, as a synchronous call's ({@link RequestSlots#await}).
     */
    private void drive(final long maxNanos)
    {
        final WorkerProgress driver = drive.driver();
        final boolean mayYield = driver == null && drive.counters() != null && drive.yieldNanos() > 0;
        if (isDone() || (driver == null ? !mayYield : driver.isProgressThread()) || !drive.budget().tryEnter())
        {
            return;
        }
        try
        {
            if ((driver == null || !driveProgress(driver, maxNanos)) && drive.counters() != null &&
                drive.yieldNanos() > 0 && drive.alone().getAsBoolean() &&
                yieldWait(Math.min(maxNanos, drive.yieldNanos())))
            {
                drive.counters().increment(ClientCounter.CALLER_YIELD_COMPLETIONS);
            }
        }
        finally
        {
            drive.budget().exit();
        }
    }

    /** Yield while not done, for at most {@code maxNanos}; true when the future completed meanwhile. */
    private boolean yieldWait(final long maxNanos)
    {
        final long start = System.nanoTime();
        while (!isDone())
        {
            if (System.nanoTime() - start >= maxNanos)
            {
                return false;
            }
            Thread.yield();
        }
        return true;
    }

    /** @return false when callers cannot drive the worker (its progress answered -1), true otherwise. */
    private boolean driveProgress(final WorkerProgress driver, final long maxNanos)
    {
        final long start = System.nanoTime();
        while (!isDone())
        {
            final int work = driver.tryProgress();
            if (work < 0)
            {
                return false;
            }
            if (isDone())
            {
                if (work > 0 && drive.counters() != null)
                {
                    // done in this thread's own cycle (no other thread cycles meanwhile): no wake-up
                    drive.counters().increment(ClientCounter.CALLER_COMPLETIONS);
                }
                return true;
            }
            final long elapsed = System.nanoTime() - start;
            if (elapsed >= maxNanos || elapsed >= RequestSlots.CALLER_YIELD_NANOS)
            {
                return true;
            }
            if (elapsed < drive.spinNanos())
            {
                Thread.onSpinWait();
            }
            else
            {
                Thread.yield();
            }
        }
        return true;
    }
}
