package io.rdmakv.server.cluster.ratis;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/** Waits of the group tests: until a condition holds, bounded, failing the test with what it waited for. */
final class GroupAwait
{
    private GroupAwait()
    {
    }

    /** Poll {@code condition} every 5 ms until it holds; fail the test once {@code limit} has passed. */
    static void until(final String what, final Duration limit, final BooleanSupplier condition)
    {
        final long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out waiting until " + what);
            }
            try
            {
                Thread.sleep(5);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }
}
