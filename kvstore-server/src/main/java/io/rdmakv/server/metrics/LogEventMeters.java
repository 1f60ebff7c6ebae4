package io.rdmakv.server.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.logging.LogbackMetrics;
import org.slf4j.LoggerFactory;

/**
 * {@code logback_events_total{level}}: the log lines the node wrote, by level (Micrometer's {@code LogbackMetrics}),
 * when logback is the process's slf4j backend, as under {@code rdmakv server}: WARN and ERROR rates an operator can
 * graph and alert on without reading the log. Counted after the turbo filters configured before it (the launcher's
 * repeated-lines filter): a line it leaves out is not counted. An embedder with another backend gets none (absent).
 */
final class LogEventMeters
{
    private LogEventMeters()
    {
    }

    /** @return the binder to close with the registry, or null when logback is not the backend. */
    static AutoCloseable bindIfLogback(final MeterRegistry registry)
    {
        if (!LoggerFactory.getILoggerFactory().getClass().getName().equals("ch.qos.logback.classic.LoggerContext"))
        {
            return null;
        }
        return Logback.bind(registry);
    }

    /** Loaded only when logback is present (logback-classic is not a run-time dependency of the server). */
    private static final class Logback
    {
        static AutoCloseable bind(final MeterRegistry registry)
        {
            final LogbackMetrics metrics = new LogbackMetrics();
            metrics.bindTo(registry);
            return metrics;
        }
    }
}
