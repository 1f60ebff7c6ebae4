package io.rdmakv.pool.alloc;

import org.agrona.concurrent.NanoClock;

/**
 * Delays the reuse of freed extents by a grace period, so a one-sided reader racing a free never sees the bytes of
 * a different key that pass verification.
 *
 * <p>Why this is enough: the writer publishes a new extent and only then frees the old one; the old bytes stay
 * untouched while retired. A remote reader that fetched the old index slot therefore reads either the old,
 * still-intact extent (a value that was committed for that key) or, if it is slower than the grace period, bytes
 * rewritten for another key, which fail its key/version/CRC check. The grace period must thus be longer than any
 * one-sided read may take: the client's read timeout (default 100 ms here).
 *
 * <p>Retired extents sit in a FIFO stamped with {@link NanoClock#nanoTime()}; since the grace period is fixed,
 * FIFO order is expiry order and {@link #poll(long, Releaser)} stops at the first unexpired entry. The arrays grow
 * by doubling when full (amortised, rare); nothing else allocates. Single-threaded, like the allocator.
 */
public final class EpochReclaimer
{
    /** Default grace period: 100 ms. */
    public static final long DEFAULT_GRACE_PERIOD_NS = 100_000_000L;

    /** Receives extents whose grace period has passed. */
    @FunctionalInterface
    public interface Releaser
    {
        void release(long offset);
    }

    private final long gracePeriodNs;
    private final NanoClock clock;
    private long[] offsets;
    private long[] retiredAt;
    private int mask;
    private long head;
    private long tail;

    /**
     * @param gracePeriodNs how long a retired extent stays untouched, at least 0.
     * @param clock the time source (injectable for tests).
     */
    public EpochReclaimer(final long gracePeriodNs, final NanoClock clock)
    {
        if (gracePeriodNs < 0)
        {
            throw new IllegalArgumentException("gracePeriodNs must not be negative: " + gracePeriodNs);
        }
        this.gracePeriodNs = gracePeriodNs;
        this.clock = clock;
        this.offsets = new long[1024];
        this.retiredAt = new long[1024];
        this.mask = 1023;
    }

    public long gracePeriodNs()
    {
        return gracePeriodNs;
    }

    public NanoClock clock()
    {
        return clock;
    }

    /** Retire {@code offset} now. */
    public void retire(final long offset)
    {
        retire(offset, clock.nanoTime());
    }

    /** Retire {@code offset} at time {@code nowNanos}; times must not go backwards. */
    public void retire(final long offset, final long nowNanos)
    {
        if (tail - head == offsets.length)
        {
            grow();
        }
        final int index = (int)(tail & mask);
        offsets[index] = offset;
        retiredAt[index] = nowNanos;
        tail++;
    }

    /** Release every extent retired at least the grace period before {@code nowNanos}; returns how many. */
    public int poll(final long nowNanos, final Releaser releaser)
    {
        int released = 0;
        while (head < tail)
        {
            final int index = (int)(head & mask);
            if (nowNanos - retiredAt[index] < gracePeriodNs)
            {
                break;
            }
            head++;
            released++;
            releaser.release(offsets[index]);
        }
        return released;
    }

    /** True if the oldest retired extent has expired by {@code nowNanos}: a cheap check before {@link #poll}. */
    public boolean hasExpired(final long nowNanos)
    {
        return head < tail && nowNanos - retiredAt[(int)(head & mask)] >= gracePeriodNs;
    }

    /** Extents retired and not yet released. */
    public int pending()
    {
        return (int)(tail - head);
    }

    /** When the oldest pending extent becomes reusable, or {@code Long.MAX_VALUE} if none is pending. */
    public long nextExpiryNanos()
    {
        return head < tail ? retiredAt[(int)(head & mask)] + gracePeriodNs : Long.MAX_VALUE;
    }

    private void grow()
    {
        final int length = offsets.length;
        final long[] newOffsets = new long[length * 2];
        final long[] newRetiredAt = new long[length * 2];
        for (int i = 0; i < length; i++)
        {
            final int from = (int)((head + i) & mask);
            newOffsets[i] = offsets[from];
            newRetiredAt[i] = retiredAt[from];
        }
        offsets = newOffsets;
        retiredAt = newRetiredAt;
        mask = length * 2 - 1;
        tail = length;
        head = 0;
    }
}
