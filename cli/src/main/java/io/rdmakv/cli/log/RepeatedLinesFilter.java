package io.rdmakv.cli.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Summarizes storms of repeated warnings from libraries (Logback turbo filter, in {@code logback.xml}): a line of a
 * logger under {@link #setPrefix prefix} at WARN or above is written the first {@link #setLinesPerWindow} times
 * per {@link #setWindowSeconds window} for each (logger, message pattern); the rest are counted, and at the end of
 * the window one line says how many were left out and of what. Apache Ratis logs a WARN per failed heartbeat and
 * election attempt: 240 lines in 20 s after one node died (issue 30), where the node's own log says what happened in
 * a few lines.
 *
 * <p>Logback's own {@code DuplicateMessageFilter} keeps a message out for good once it repeated; this filter lets it
 * through again in every window, so a second failure an hour later is logged as the first one was.
 */
public final class RepeatedLinesFilter extends TurboFilter
{
    private static final org.slf4j.Logger SUMMARY = LoggerFactory.getLogger(RepeatedLinesFilter.class);

    private String prefix = "org.apache.ratis";
    private int linesPerWindow = 5;
    private long windowSeconds = 30;
    private final Map<String, Count> counts = new HashMap<>();
    private ScheduledExecutorService flusher;

    /** Loggers whose names start with this are filtered (default {@code org.apache.ratis}). */
    public void setPrefix(final String prefix)
    {
        this.prefix = prefix;
    }

    /** Lines of one (logger, pattern) written per window (default 5). */
    public void setLinesPerWindow(final int linesPerWindow)
    {
        this.linesPerWindow = Math.max(1, linesPerWindow);
    }

    /** The window in seconds (default 30). */
    public void setWindowSeconds(final long windowSeconds)
    {
        this.windowSeconds = Math.max(1, windowSeconds);
    }

    @Override
    public void start()
    {
        flusher = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, "rdmakv-log-summary");
            t.setDaemon(true);
            return t;
        });
        flusher.scheduleWithFixedDelay(this::endWindow, windowSeconds, windowSeconds, TimeUnit.SECONDS);
        super.start();
    }

    @Override
    public void stop()
    {
        if (flusher != null)
        {
            flusher.shutdownNow();
        }
        endWindow();
        super.stop();
    }

    @Override
    public FilterReply decide(final Marker marker, final Logger logger, final Level level, final String format,
        final Object[] params, final Throwable t)
    {
        // A null format is a level probe (isErrorEnabled()), not a line: Netty's leak detector asks at every sampled
        // buffer, and counting those would deny the probe (hiding a real leak report) and summarize lines never written.
        if (format == null || level == null || !level.isGreaterOrEqual(Level.WARN) || logger == null ||
            !logger.getName().startsWith(prefix) || !level.isGreaterOrEqual(logger.getEffectiveLevel()))
        {
            return FilterReply.NEUTRAL;
        }
        final String key = logger.getName() + '\u0000' + format;
        synchronized (counts)
        {
            final Count c = counts.computeIfAbsent(key, k -> new Count(logger.getName(), format));
            return ++c.seen <= linesPerWindow ? FilterReply.NEUTRAL : FilterReply.DENY;
        }
    }

    /**
     * End the current window: one line per (logger, pattern) that had lines left out, then start counting afresh.
     * Runs every window on the filter's thread; public for tests.
     */
    public void endWindow()
    {
        final List<Count> over = new ArrayList<>();
        synchronized (counts)
        {
            for (final Count c : counts.values())
            {
                if (c.seen > linesPerWindow)
                {
                    over.add(c);
                }
            }
            counts.clear();
        }
        for (final Count c : over)
        {
            SUMMARY.warn("{}: {} more lines like \"{}\" left out in the last {} s ({} per {} s are written)",
                c.logger, c.seen - linesPerWindow, c.format, windowSeconds, linesPerWindow, windowSeconds);
        }
    }

    private static final class Count
    {
        final String logger;
        final String format;
        long seen;

        Count(final String logger, final String format)
        {
            this.logger = logger;
            this.format = format;
        }
    }
}
