package io.rdmakv.transport.log;

import org.agrona.concurrent.NanoClock;

import java.time.Duration;

/**
 * How many lines one log call site may write: at most {@code linesPerWindow} in each window of {@code window}; the
 * lines beyond are counted, not written, and the count is handed to the first line written after them.
 *
 * <pre>
 *   window 1: line line line (limit) x x x x     window 2: line "(4 similar suppressed)" line ...
 * </pre>
 *
 * Thread-safe (a short lock): a call site may be reached from several event loops. Only peer-driven error paths
 * call it, never a request path.
 */
public final class LogRateLimiter
{
    /** {@link #acquire()} when the line must not be written. */
    public static final long SUPPRESS = -1;

    private final int linesPerWindow;
    private final long windowNanos;
    private final NanoClock clock;
    private long windowStart;
    private boolean started;
    private int linesInWindow;
    private long suppressed;
    private long suppressedTotal;

    /**
     * @param linesPerWindow lines written at most per window (at least 1).
     * @param window         the length of a window (positive).
     * @param clock          time source (a test can move it).
     */
    public LogRateLimiter(final int linesPerWindow, final Duration window, final NanoClock clock)
    {
        if (linesPerWindow < 1 || window.isNegative() || window.isZero())
        {
            throw new IllegalArgumentException("need at least one line per positive window: " + linesPerWindow +
                " per " + window);
        }
        this.linesPerWindow = linesPerWindow;
        this.windowNanos = window.toNanos();
        this.clock = clock;
    }

    /**
     * Ask to write one line now.
     *
     * @return {@link #SUPPRESS} when the line must be dropped (it is counted), else how many lines were suppressed
     *         since the last line written (0 when none): the caller says so in the line.
     */
    public synchronized long acquire()
    {
        final long now = clock.nanoTime();
        if (!started || now - windowStart >= windowNanos)
        {
            started = true;
            windowStart = now;
            linesInWindow = 0;
        }
        if (linesInWindow >= linesPerWindow)
        {
            suppressed++;
            suppressedTotal++;
            return SUPPRESS;
        }
        linesInWindow++;
        final long report = suppressed;
        suppressed = 0;
        return report;
    }

    /** Lines suppressed since this limiter was made (diagnostics, tests). */
    public synchronized long suppressedTotal()
    {
        return suppressedTotal;
    }
}
