package io.rdmakv.server.cluster;

import org.agrona.concurrent.NanoClock;

/**
 * The node's monotonic clock, the one its node lease and the read leases it grants are timed on. Normally
 * {@link System#nanoTime()}; tests make one node's clock run fast or slow with the system property
 * {@value #RATE_PROPERTY} (e.g. {@code 1.05}: 5% fast), to check that the drift bound covers it.
 */
public final class NodeClock
{
    /** System property: the clock's rate against the host's monotonic clock (0.1..10; 1 by default). */
    public static final String RATE_PROPERTY = "rdmakv.clock.rate";

    private NodeClock()
    {
    }

    /** The clock this process should use: {@link #scaled} by {@value #RATE_PROPERTY} when set, else the system's. */
    public static NanoClock configured()
    {
        final String rate = System.getProperty(RATE_PROPERTY);
        return rate == null ? System::nanoTime : scaled(System::nanoTime, parseRate(rate));
    }

    /** {@code base} run at {@code rate}: it advances {@code rate} ns for every ns of {@code base}, from now on. */
    public static NanoClock scaled(final NanoClock base, final double rate)
    {
        if (!(rate >= 0.1 && rate <= 10))
        {
            throw new IllegalArgumentException(RATE_PROPERTY + " must be between 0.1 and 10: " + rate);
        }
        if (rate == 1.0)
        {
            return base;
        }
        final long origin = base.nanoTime();
        return () -> origin + (long)((base.nanoTime() - origin) * rate);
    }

    static double parseRate(final String text)
    {
        try
        {
            return Double.parseDouble(text.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(RATE_PROPERTY + " must be a number like 1.05: '" + text + "'", ex);
        }
    }
}
