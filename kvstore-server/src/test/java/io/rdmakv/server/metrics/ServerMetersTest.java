package io.rdmakv.server.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmakv.server.handler.RequestTimer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The STATS latency summary reads quantiles from the timers' buckets on either registry a node uses. */
class ServerMetersTest
{
    @Test
    void shouldSummariseQuantilesFromTheBuckets()
    {
        // Without metrics.port a node keeps its timers on a Prometheus registry too (cumulative buckets), not on
        // Micrometer's SimpleMeterRegistry, which keeps no percentile-histogram buckets.
        for (final MeterRegistry registry : List.of(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)))
        {
            final ServerMeters meters = ServerMeters.timersOnly(registry);
            for (int i = 0; i < 990; i++)
            {
                meters.record(RequestTimer.Operation.GET, 10_000);
            }
            for (int i = 0; i < 10; i++)
            {
                meters.record(RequestTimer.Operation.GET, 50_000_000);
            }
            final String summary = meters.summary(RequestTimer.Operation.GET);
            final Matcher m = Pattern.compile("count=1000 mean=[0-9.]+us p50<=([0-9.]+)us p99<=([0-9.]+)us max=([0-9.]+)us")
                .matcher(summary);
            assertTrue(m.matches(), registry.getClass().getSimpleName() + ": " + summary);
            final double p50 = Double.parseDouble(m.group(1));
            final double p99 = Double.parseDouble(m.group(2));
            assertTrue(p50 >= 10 && p50 < 20, "p50 is the bucket holding 10 us: " + summary);
            assertTrue(p99 >= 10 && p99 < 20, "990 of 1000 are 10 us: " + summary);
            assertEquals(50_000.0, Double.parseDouble(m.group(3)), summary);
            assertEquals("count=0", meters.summary(RequestTimer.Operation.PUT));
        }
    }

    @Test
    void shouldKeepTheMaxOverTheSameSpanAsTheQuantiles()
    {
        // The Timer's own max decays over a window (two minutes); the buckets count since the start. A quiet node's
        // summary showed max=0 beside p50<=152.9us: the max must cover what the count and the quantiles cover.
        final MockClock clock = new MockClock();
        final ServerMeters meters = ServerMeters.timersOnly(
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, new PrometheusRegistry(), clock));
        meters.record(RequestTimer.Operation.GET, 150_000);
        meters.record(RequestTimer.Operation.GET, 2_000_000);
        clock.add(Duration.ofMinutes(10));
        final Matcher m = Pattern.compile("count=2 mean=[0-9.]+us p50<=([0-9.]+)us p99<=([0-9.]+)us max=([0-9.]+)us")
            .matcher(meters.summary(RequestTimer.Operation.GET));
        assertTrue(m.matches(), meters.summary(RequestTimer.Operation.GET));
        assertTrue(Double.parseDouble(m.group(1)) >= 150, m.group(0));
        assertEquals(2_000.0, Double.parseDouble(m.group(3)), m.group(0));
    }
}
