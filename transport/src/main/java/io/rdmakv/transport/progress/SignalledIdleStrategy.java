package io.rdmakv.transport.progress;

import java.util.concurrent.locks.LockSupport;

/**
 * The idle strategy of a POLLED worker's progress thread: spin, then yield, then park with a doubling bound up to
 * {@link #MAX_PARK_NANOS}, and a way for a producer to cut a park short ({@code ucp_worker_arm} / {@code
 * ucp_worker_signal} in spirit). A producer that hands work over calls {@link #signal()}: one volatile store and one
 * volatile read while the progress thread runs, an unpark only when it is parked.
 *
 * <p>No lost wake-up (a Dekker pair): the producer enqueues, sets {@code signalled}, then reads {@code parked}; the
 * idler sets {@code parked}, then reads {@code signalled} and parks only when it is clear. Either the idler sees the
 * signal and does not park, or the producer sees the parked thread and unparks it (an unpark before the park makes the
 * park return at once). The idler clears {@code signalled} before it polls again, so the work is found by that poll.
 * Completions of a transport without a wake-up source cannot signal, which is why the park stays bounded (a
 * worker with one is {@link io.rdmakv.transport.ProgressModel#ARMABLE} and idles with {@link WakeupIdleStrategy} instead).
 */
public final class SignalledIdleStrategy extends SpinYieldIdleStrategy
{
    /** Longest park: bounds the latency of work that cannot signal (verbs completions with verbs.idle=poll). */
    public static final long MAX_PARK_NANOS = 100_000;
    private static final long MIN_PARK_NANOS = 1_000;

    private volatile Thread parked;
    private volatile boolean signalled;
    private long parkNanos = MIN_PARK_NANOS;

    /** Wake the idler if it is parked; any thread. */
    public void signal()
    {
        signalled = true;
        final Thread t = parked;
        if (t != null)
        {
            LockSupport.unpark(t);
        }
    }

    @Override
    protected void idleQuietly()
    {
        parked = Thread.currentThread();
        if (!signalled)
        {
            LockSupport.parkNanos(parkNanos);
        }
        parked = null;
        if (signalled)
        {
            signalled = false;
            reset();
        }
        else
        {
            parkNanos = Math.min(parkNanos << 1, MAX_PARK_NANOS);
        }
    }

    @Override
    public void reset()
    {
        super.reset();
        parkNanos = MIN_PARK_NANOS;
    }

    @Override
    public String alias()
    {
        return "signalled-backoff";
    }
}
