package io.rdmakv.server.admission;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Slows down guessing of the credential, per {@link SourceAddress}: a source may fail {@code burst} times at once,
 * then one more failure per {@code interval} (a token bucket, kept as one "theoretical arrival time" per source, the
 * generic cell rate algorithm). While a source is over its rate, EVERY credential it sends waits for its turn before
 * it is checked, right or wrong: otherwise guessing on many connections at once would tell a right guess by its
 * quick answer. Other sources are not affected.
 *
 * <pre>
 *   HELLO from s ─► delayNanos(s, now):  0 ─► check now; wrong ─► recordFailure(s, now)
 *                                       d > 0 ─► the check of this HELLO is booked d ns from now (a failure slot)
 *                                       REFUSE ─► the wait would outlast the handshake deadline: REJECT BUSY
 * </pre>
 *
 * At most {@code maxSources} sources are remembered (least recently failed forgotten first). Single-threaded (the
 * control plane's event loop).
 */
public final class CredentialThrottle
{
    /** {@link #delayNanos} when the wait would be longer than the caller can wait. */
    public static final long REFUSE = -1;

    private final long intervalNanos;
    private final long toleranceNanos;
    private final Map<InetAddress, Long> nextAllowed;

    /**
     * @param burst         failures a source may have at once (at least 1).
     * @param intervalNanos then one more per this time (positive).
     * @param maxSources    sources remembered at most.
     */
    public CredentialThrottle(final int burst, final long intervalNanos, final int maxSources)
    {
        if (burst < 1 || intervalNanos <= 0 || maxSources < 1)
        {
            throw new IllegalArgumentException("burst, interval and sources must be positive: " + burst + ", " +
                intervalNanos + " ns, " + maxSources);
        }
        this.intervalNanos = intervalNanos;
        this.toleranceNanos = (burst - 1) * intervalNanos;
        this.nextAllowed = new LinkedHashMap<>(16, 0.75f, true)
        {
            @Override
            protected boolean removeEldestEntry(final Map.Entry<InetAddress, Long> eldest)
            {
                return size() > maxSources;
            }
        };
    }

    /**
     * How long the credential of a HELLO from {@code source} must wait before it is checked.
     *
     * @param longestWaitNanos the longest the caller can wait (what is left of the handshake deadline).
     * @return 0: check it now (and {@link #recordFailure} when it is wrong); a positive delay: a failure slot is
     *         booked for it, check it then and do not record its failure; {@link #REFUSE}: nothing booked, refuse.
     */
    public long delayNanos(final InetAddress source, final long nowNanos, final long longestWaitNanos)
    {
        final Long tat = nextAllowed.get(source);
        if (tat == null || tat - toleranceNanos <= nowNanos)
        {
            return 0;
        }
        final long delay = tat - toleranceNanos - nowNanos;
        if (delay > longestWaitNanos)
        {
            return REFUSE;
        }
        nextAllowed.put(source, tat + intervalNanos);
        return delay;
    }

    /** A credential checked at once ({@link #delayNanos} was 0) was wrong. */
    public void recordFailure(final InetAddress source, final long nowNanos)
    {
        final Long tat = nextAllowed.get(source);
        nextAllowed.put(source, Math.max(tat == null ? nowNanos : tat, nowNanos) + intervalNanos);
    }

    /** Sources remembered. */
    public int sources()
    {
        return nextAllowed.size();
    }
}
