package io.rdmakv.it.support;

import java.time.Duration;
import java.util.function.LongSupplier;

/** Waits for a count a test drives to reach its target (bounded: the bound only ends a test that is stuck). */
public final class AwaitCount
{
    private AwaitCount()
    {
    }

    /**
     * Return once {@code count} is at least {@code target}.
     *
     * @throws AssertionError naming the count when it stayed below {@code target} for {@code within}.
     */
    public static void atLeast(final LongSupplier count, final long target, final Duration within)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + within.toNanos();
        while (count.getAsLong() < target)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("count stayed at " + count.getAsLong() + " < " + target);
            }
            Thread.sleep(10);
        }
    }
}
