package io.rdmakv.transport;

import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test support for idle strategies: a consumer thread that takes the items a producer offers one at a time and idles
 * with the strategy under test between them, as a progress thread idles between completions. The producer offers
 * item {@code i} with {@link #offer(long)}, wakes the consumer its own way, and waits for {@link #taken()} to reach it.
 */
public final class HandOffConsumer
{
    private final AtomicLong offered = new AtomicLong();
    private final AtomicLong taken = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    public HandOffConsumer(final IdleStrategy idle)
    {
        thread = new Thread(() ->
        {
            while (!stop.get())
            {
                final int work = offered.get() > taken.get() ? 1 : 0;
                if (work > 0)
                {
                    taken.incrementAndGet();
                }
                idle.idle(work);
            }
        }, "hand-off-consumer");
        thread.start();
    }

    /** Make item {@code i} (1, 2, ...) available; the caller then wakes the consumer. */
    public void offer(final long i)
    {
        offered.set(i);
    }

    public long taken()
    {
        return taken.get();
    }

    /** Ask the consumer to stop; the caller then wakes it and {@link #join}s. */
    public void stop()
    {
        stop.set(true);
    }

    /** True if the consumer ended within {@code millis}. */
    public boolean join(final long millis) throws InterruptedException
    {
        thread.join(millis);
        return !thread.isAlive();
    }
}
