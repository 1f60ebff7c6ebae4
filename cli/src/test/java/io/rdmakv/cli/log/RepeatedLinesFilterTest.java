package io.rdmakv.cli.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A storm of one library warning becomes its first lines and one summary per window; every window lets the first
 * lines through again; other loggers, other patterns and lines below WARN are untouched. The window is ended by the
 * test ({@link RepeatedLinesFilter#endWindow}), not by time.
 */
class RepeatedLinesFilterTest
{
    /**
     * A library asking whether ERROR is enabled (Netty's leak detector does at every sampled buffer) writes no line:
     * the probes are neither counted nor denied, so a real report after them is still written.
     */
    @Test
    void shouldNeitherCountNorDenyLevelProbes()
    {
        final Logged logged = new Logged();
        final LoggerContext context = logged.context;
        final RepeatedLinesFilter filter = logged.filter;
        final ListAppender<ILoggingEvent> out = logged.out;
        final Logger netty = context.getLogger("org.apache.ratis.thirdparty.io.netty.util.ResourceLeakDetector");
        for (int i = 0; i < 100; i++)
        {
            assertTrue(netty.isErrorEnabled(), "probe " + i);
        }
        netty.error("LEAK: {} was not released", "a buffer");
        assertEquals(1, count(out.list, "LEAK"), "the report after the probes is written");
        final ListAppender<ILoggingEvent> summaries = logged.summaries();
        filter.endWindow();
        logged.close();
        assertEquals(0, summaries.list.size(), "no summary of lines never written: " + summaries.list);
    }

    @Test
    void shouldWriteTheFirstLinesOfAStormAndSummarizeTheRestPerWindow()
    {
        final Logged logged = new Logged();
        final LoggerContext context = logged.context;
        final RepeatedLinesFilter filter = logged.filter;
        final ListAppender<ILoggingEvent> out = logged.out;
        final ListAppender<ILoggingEvent> summaries = logged.summaries();

        final Logger ratis = context.getLogger("org.apache.ratis.server.impl.LeaderStateImpl");
        for (int i = 0; i < 240; i++)
        {
            ratis.warn("{}: Failed to send heartbeat to {}", "s1", "peer-" + (i % 3));
        }
        ratis.warn("another kind of warning");
        ratis.info("below WARN: not counted");
        context.getLogger("io.rdmakv.server.KvServer").warn("{}: ours, never filtered", 1);
        context.getLogger("io.rdmakv.server.KvServer").warn("{}: ours, never filtered", 2);
        assertEquals(5, count(out.list, "Failed to send heartbeat"), "the storm's first lines");
        assertEquals(1, count(out.list, "another kind"));
        assertEquals(1, count(out.list, "below WARN"));
        assertEquals(2, count(out.list, "ours, never filtered"));

        filter.endWindow();
        final List<ILoggingEvent> said = summaries.list;
        assertEquals(1, said.size(), "one summary for the one pattern over its limit");
        final String line = said.get(0).getFormattedMessage();
        assertTrue(line.contains("235 more lines") && line.contains("Failed to send heartbeat") &&
            line.contains("LeaderStateImpl"), line);

        for (int i = 0; i < 10; i++)
        {
            ratis.warn("{}: Failed to send heartbeat to {}", "s1", "peer-0");
        }
        assertEquals(10, count(out.list, "Failed to send heartbeat"), "a new window lets the first lines through");
        logged.close();
    }

    /**
     * A logging context with the filter (5 lines per window; not started: no timer, the test ends windows) and an
     * appender of every line written at INFO and above.
     */
    private static final class Logged implements AutoCloseable
    {
        final LoggerContext context = new LoggerContext();
        final RepeatedLinesFilter filter = new RepeatedLinesFilter();
        final ListAppender<ILoggingEvent> out = new ListAppender<>();
        private final Logger summary = (Logger)org.slf4j.LoggerFactory.getLogger(RepeatedLinesFilter.class);
        private ListAppender<ILoggingEvent> summaries;

        Logged()
        {
            filter.setContext(context);
            filter.setLinesPerWindow(5);
            context.addTurboFilter(filter);
            out.setContext(context);
            out.start();
            final Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
            root.setLevel(Level.INFO);
            root.addAppender(out);
        }

        /** The filter's summaries: they go through SLF4J's factory, not this context, so caught on the global one. */
        ListAppender<ILoggingEvent> summaries()
        {
            summaries = new ListAppender<>();
            summaries.setContext(summary.getLoggerContext());
            summaries.start();
            summary.addAppender(summaries);
            return summaries;
        }

        @Override
        public void close()
        {
            if (summaries != null)
            {
                summary.detachAppender(summaries);
            }
        }
    }

    private static long count(final List<ILoggingEvent> events, final String text)
    {
        return events.stream().filter(e -> e.getFormattedMessage().contains(text)).count();
    }
}
