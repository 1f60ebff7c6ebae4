package io.rdmakv.client.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many synchronous callers may drive progress at once ({@link RequestSlots#await}: spin, then yield, polling the
 * worker), JVM-wide: half the processors, at least one ({@link #SHARED}). A caller past the budget parks until the
 * progress thread hands it its answer, as without caller-driven progress. Without the bound, more driving callers
 * than cores take the cores from the threads that produce their answers (this client's progress thread, a node on the
 * same host): the demo with four caller threads over shm to its in-process node (two cores, load ~5) had a PUT p50
 * of 4.4 ms, 0.38-1.28 ms with the budget, against 0.23-0.29 ms over tcp, whose callers never spin. UCX's advice: one
 * thread busy-polls a worker, the others wait.
 * <pre>
 *   tryEnter()  drivers < max ? drivers++ , true : false      (lock-free)
 *   exit()      drivers--                                     (after every successful tryEnter)
 * </pre>
 */
final class CallerDriveBudget
{
    /** The JVM's budget: every client's callers share the cores. */
    static final CallerDriveBudget SHARED =
        new CallerDriveBudget(Math.max(1, Runtime.getRuntime().availableProcessors() / 2));

    private final int max;
    private final AtomicInteger drivers = new AtomicInteger();

    /** @param max callers that may drive at once (at least one). */
    CallerDriveBudget(final int max)
    {
        if (max < 1)
        {
            throw new IllegalArgumentException("at least one caller must be able to drive: " + max);
        }
        this.max = max;
    }

    /** Take a place to drive; false when {@link #max()} callers already drive. Any thread. */
    boolean tryEnter()
    {
        while (true)
        {
            final int n = drivers.get();
            if (n >= max)
            {
                return false;
            }
            if (drivers.compareAndSet(n, n + 1))
            {
                return true;
            }
        }
    }

    /** Give the place back (once per successful {@link #tryEnter()}). */
    void exit()
    {
        drivers.decrementAndGet();
    }

    int max()
    {
        return max;
    }

    /** Callers driving now. */
    int drivers()
    {
        return drivers.get();
    }
}
