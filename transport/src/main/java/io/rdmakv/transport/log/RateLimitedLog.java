package io.rdmakv.transport.log;

import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.helpers.MessageFormatter;

import java.time.Duration;

/**
 * One log call site whose lines a peer can cause: at most {@link #LINES_PER_WINDOW} lines per {@link #WINDOW}
 * ({@link LogRateLimiter}); a line written after some were dropped ends with {@code (N similar lines suppressed)}.
 * Keep one instance per site ({@code static final}), so a flood of one kind never hides the lines of another.
 *
 * <pre>
 *   private static final RateLimitedLog REFUSED = RateLimitedLog.of(LOG);
 *   REFUSED.warn("refused frame from {}: {}", address, reason);
 * </pre>
 */
public final class RateLimitedLog
{
    /** Lines one site writes at most per window. */
    public static final int LINES_PER_WINDOW = 10;
    /** The window. */
    public static final Duration WINDOW = Duration.ofSeconds(10);

    private final Logger logger;
    private final LogRateLimiter limiter;

    /** A site of {@code logger} with the default rate and the system clock. */
    public static RateLimitedLog of(final Logger logger)
    {
        return new RateLimitedLog(logger, new LogRateLimiter(LINES_PER_WINDOW, WINDOW, new SystemNanoClock()));
    }

    /** A site with its own limiter (tests: another rate or clock). */
    public RateLimitedLog(final Logger logger, final LogRateLimiter limiter)
    {
        this.logger = logger;
        this.limiter = limiter;
    }

    /** A site of {@code logger} at {@code linesPerWindow} per {@code window} on {@code clock}. */
    public static RateLimitedLog of(final Logger logger, final int linesPerWindow, final Duration window,
        final NanoClock clock)
    {
        return new RateLimitedLog(logger, new LogRateLimiter(linesPerWindow, window, clock));
    }

    /** ERROR, slf4j {@code {}} formatting, unless this site is over its rate. */
    public void error(final String format, final Object... args)
    {
        if (logger.isErrorEnabled())
        {
            final String line = line(format, args);
            if (line != null)
            {
                logger.error(line);
            }
        }
    }

    /** WARN, slf4j {@code {}} formatting, unless this site is over its rate. */
    public void warn(final String format, final Object... args)
    {
        if (logger.isWarnEnabled())
        {
            final String line = line(format, args);
            if (line != null)
            {
                logger.warn(line);
            }
        }
    }

    /** INFO, slf4j {@code {}} formatting, unless this site is over its rate. */
    public void info(final String format, final Object... args)
    {
        if (logger.isInfoEnabled())
        {
            final String line = line(format, args);
            if (line != null)
            {
                logger.info(line);
            }
        }
    }

    /** Lines this site dropped since it was made. */
    public long suppressedTotal()
    {
        return limiter.suppressedTotal();
    }

    private String line(final String format, final Object[] args)
    {
        final long suppressed = limiter.acquire();
        if (suppressed == LogRateLimiter.SUPPRESS)
        {
            return null;
        }
        final String message = MessageFormatter.arrayFormat(format, args).getMessage();
        return suppressed == 0 ? message : message + " (" + suppressed + " similar lines suppressed)";
    }
}
