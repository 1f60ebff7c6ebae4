package io.rdmakv.client.internal;

import io.rdmakv.protocol.wire.ResponseFlyweight;
import org.agrona.concurrent.NanoClock;

/**
 * This client's read lease on one node: one-sided GETs of the node are trusted only while it holds. A node grants
 * {@code g} ms in an answer ({@link ResponseFlyweight#readLeaseMillis()}); the client times it from the moment it SENT
 * the request, on its own monotonic clock, scaled down by the clock drift bound: the lease ends at
 * {@code sent + g / drift}. The node granted at most its remaining node lease minus a margin, after the send, so
 * even a client clock running {@code drift} times slow ends its lease before the node's lease ends.
 *
 * <p>{@link #holdsNow} is one volatile load and a compare (the cached-GET path; a clock read too unless the lease is
 * unbounded); grants only move the end forward.
 * Public only for {@link #useClock}, the tests' way to run the client's lease clock by hand.
 */
public final class ReadLease
{
    /** System property: the clock drift bound clients assume (the cluster's {@code cluster.maxClockDrift}). */
    static final String DRIFT_PROPERTY = "rdmakv.client.maxClockDrift";
    /** The drift bound: {@value #DRIFT_PROPERTY}, 1.1 unless set. */
    static final double MAX_CLOCK_DRIFT = parseDrift(System.getProperty(DRIFT_PROPERTY, "1.1"));

    private static final long NONE = Long.MIN_VALUE;
    private static final long UNBOUNDED = Long.MAX_VALUE;
    /** The clock of every lease; tests of this package replace it (and restore {@link System#nanoTime()}). */
    private static volatile NanoClock clock = System::nanoTime;

    private final double drift;
    private volatile long end = NONE;

    ReadLease()
    {
        this(MAX_CLOCK_DRIFT);
    }

    ReadLease(final double drift)
    {
        if (!(drift >= 1.0 && drift <= 10))
        {
            throw new IllegalArgumentException("clock drift bound must be 1..10: " + drift);
        }
        this.drift = drift;
    }

    /** The client's monotonic time, the one leases are timed on. */
    static long now()
    {
        return clock.nanoTime();
    }

    /** Replace the clock of every lease (tests of this package); {@code null} restores {@link System#nanoTime()}. */
    public static void useClock(final NanoClock testClock)
    {
        clock = testClock == null ? System::nanoTime : testClock;
    }

    /**
     * True while the lease holds now: {@link #holds} at the clock's time, read after the lease's end. An unbounded
     * lease (a static map) or none at all is decided without reading the clock: the cached GET checks its lease
     * twice, and a clock read costs more than the rest of the check.
     */
    boolean holdsNow()
    {
        final long e = end;
        return e == UNBOUNDED || e != NONE && clock.nanoTime() - e < 0;
    }

    /** True while the lease holds at {@code nowNanos}. */
    boolean holds(final long nowNanos)
    {
        final long e = end;
        return e == UNBOUNDED || e != NONE && nowNanos - e < 0;
    }

    /** An answer to a request sent at {@code sentNanos} granted {@code grantMillis} (NONE/UNBOUNDED/ms). */
    void granted(final long sentNanos, final int grantMillis)
    {
        if (grantMillis == ResponseFlyweight.READ_LEASE_NONE)
        {
            return;
        }
        if (grantMillis == ResponseFlyweight.READ_LEASE_UNBOUNDED)
        {
            end = UNBOUNDED;
            return;
        }
        final long candidate = sentNanos + scaledNanos(grantMillis, drift);
        synchronized (this)
        {
            final long e = end;
            if (e == NONE || e != UNBOUNDED && candidate - e > 0)
            {
                end = candidate;
            }
        }
    }

    /** The lease ended or the session's node changed: nothing is trusted until the next grant. */
    void revoke()
    {
        end = NONE;
    }

    /** How long a grant of {@code grantMillis} lasts on this client's clock: scaled down by {@code drift}, floored. */
    static long scaledNanos(final int grantMillis, final double drift)
    {
        return (long)Math.floor(grantMillis * 1_000_000.0 / drift);
    }

    static double parseDrift(final String text)
    {
        final double d;
        try
        {
            d = Double.parseDouble(text.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(DRIFT_PROPERTY + " must be a number like 1.1: '" + text + "'", ex);
        }
        if (!(d >= 1.0 && d <= 10))
        {
            throw new IllegalArgumentException(DRIFT_PROPERTY + " must be between 1.0 and 10: " + d);
        }
        return d;
    }
}
