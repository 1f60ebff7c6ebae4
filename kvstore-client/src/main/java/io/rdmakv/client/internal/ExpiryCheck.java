package io.rdmakv.client.internal;

import java.util.function.LongSupplier;

/**
 * Whether a value with an expiry, read one-sided, may be returned: decided on the reader's own wall clock with the
 * drift bound of the read lease ({@link ReadLease#MAX_CLOCK_DRIFT}), so that an expired value is never returned and a
 * live one costs no RPC while the answer is sure.
 *
 * <pre>
 *   w = the write's instant on the primary's clock: the data version's milliseconds (DataVersions: a hybrid logical
 *       clock, wall ms &lt;&lt; 20)
 *   t = expiry - w          how long the value lives, on the node's clock
 *   x = now - w             how long ago it was written, on the reader's clock
 *   the node's clock has moved by between x / drift and x * drift since the write (the lease's rule: a duration on
 *   one clock is at most drift times one on another), so
 *     x * drift &lt;  t  -> LIVE      the node cannot have reached the expiry: returned one-sided
 *     x / drift &gt;= t  -> EXPIRED   the node has surely reached it: absent, one-sided
 *     otherwise, or x &lt; 0 (the reader's clock is behind the write) -> ASK_NODE: the GET goes by RPC, the node's
 *                                                                     clock decides
 * </pre>
 * The band is a fraction of the value's life on either side of its expiry ({@code drift - 1}: 10% at 1.1), so a
 * value with a TTL of an hour is read one-sided for its first 54 minutes, by RPC until 66 minutes and absent after.
 * What it assumes besides the drift bound: the reader's and the primary's wall clocks agreed at the write (NTP, well
 * within the band), and the data version's milliseconds are the primary's wall clock at the write (the hybrid clock
 * runs ahead of it only by what it observed from a faster clock, or past 4,096 writes in a millisecond).
 *
 * Stateless; allocation-free.
 */
public final class ExpiryCheck
{
    /** The answer for one extent. */
    public enum Verdict
    {
        /** Surely not expired on the node's clock: the value may be returned one-sided. */
        LIVE,
        /** Surely expired on the node's clock: the key is absent. */
        EXPIRED,
        /** Within the uncertainty band: ask the node. */
        ASK_NODE
    }

    /** The data version's bits below its milliseconds (the server's {@code DataVersions.CLOCK_SHIFT}). */
    static final int VERSION_CLOCK_SHIFT = 20;

    /** The reader's wall clock; tests replace it (and restore {@link System#currentTimeMillis()}). */
    private static volatile LongSupplier clock = System::currentTimeMillis;

    private ExpiryCheck()
    {
    }

    /** Replace the wall clock the check reads (tests); {@code null} restores {@link System#currentTimeMillis()}. */
    public static void useClock(final LongSupplier testClock)
    {
        clock = testClock == null ? System::currentTimeMillis : testClock;
    }

    /** The reader's wall clock, ms since the epoch. */
    static long nowMillis()
    {
        return clock.getAsLong();
    }

    /**
     * @param expiryMillis the extent's expiry, ms since the epoch (0: none, always {@link Verdict#LIVE}).
     * @param dataVersion  the extent's data version.
     * @param nowMillis    the reader's wall clock.
     * @param drift        the clock drift bound, at least 1.
     */
    public static Verdict decide(final long expiryMillis, final long dataVersion, final long nowMillis,
        final double drift)
    {
        if (expiryMillis == 0)
        {
            return Verdict.LIVE;
        }
        final long written = dataVersion >>> VERSION_CLOCK_SHIFT;
        final long sinceWrite = nowMillis - written;
        if (sinceWrite < 0)
        {
            return Verdict.ASK_NODE;
        }
        final long life = expiryMillis - written;
        // Rounded away from the sure answers (a product that is a whole number may come out a hair below it).
        if (Math.ceil(sinceWrite * drift) < life)
        {
            return Verdict.LIVE;
        }
        if (Math.floor(sinceWrite / drift) >= life)
        {
            return Verdict.EXPIRED;
        }
        return Verdict.ASK_NODE;
    }
}
