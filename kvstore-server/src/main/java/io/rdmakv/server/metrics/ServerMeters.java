package io.rdmakv.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.handler.RequestTimer;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * Binds what the node counts to Micrometer meters read at scrape time, and times requests by operation. Names and
 * HELP come from {@link MeterCatalog}.
 *
 * <pre>
 *   rdmakv_server_&lt;label&gt;_total         every ServerCounter total (label in snake_case: gets_rpc_not_found_total)
 *   rdmakv_server_&lt;label&gt;               the ServerCounter levels (connections, writes in flight) and the node's
 *                                        gauges (pool keys/bytes, registrations, memory)
 *   rdmakv_server_rejects_total{cause}   the rejection counters again under one name, by cause
 *   rdmakv_server_request_seconds{op}    request-thread time per operation: {@link #SLO_BUCKETS} buckets only
 * </pre>
 *
 * <p>STATS' latency summaries read finer timers of their own (a percentile histogram of about 100 buckets per
 * operation) kept in a registry that is never scraped: 396 bucket series per node were exported before.
 */
public final class ServerMeters implements RequestTimer
{
    /**
     * Upper bounds of the exported request-time buckets: 10 bounds and +Inf, 11 series per operation, 44 per node
     * (the percentile histogram exported before had 99 per operation, 396 per node).
     */
    static final Duration[] SLO_BUCKETS = {Duration.ofNanos(10_000), Duration.ofNanos(50_000),
        Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000), Duration.ofMillis(1),
        Duration.ofMillis(5), Duration.ofMillis(25), Duration.ofMillis(100), Duration.ofSeconds(1)};

    /** Rejections by cause: the {@code cause} tag of {@code rdmakv_server_rejects_total}. */
    private static final Map<ServerCounter, String> REJECTS = Map.of(
        ServerCounter.MALFORMED_REQUESTS, "malformed",
        ServerCounter.LIMIT_REJECTIONS, "over_limit",
        ServerCounter.WRONG_NODE, "wrong_node",
        ServerCounter.BUSY, "busy",
        ServerCounter.CONNECTIONS_REFUSED, "connection_limit",
        ServerCounter.HANDSHAKE_REJECTS, "handshake",
        ServerCounter.ATTACH_REFUSALS, "attach",
        ServerCounter.DISK_FULL_REFUSALS, "disk_full",
        ServerCounter.FORBIDDEN, "forbidden");

    /** Fine timers for STATS (never scraped). */
    private final Map<Operation, Timer> timers = new EnumMap<>(Operation.class);
    /** The exported timers with few buckets; empty without a metrics endpoint. */
    private final Map<Operation, Timer> exported = new EnumMap<>(Operation.class);
    /**
     * The longest request per operation since the start. A Timer's max is a decaying window (two minutes by default)
     * while the percentile buckets count since the start, so after two quiet minutes it read 0 beside a p50 of
     * 150 us; the summary reports this one, over the same span as its count and quantiles.
     */
    private final Map<Operation, LongAccumulator> maxNanos = new EnumMap<>(Operation.class);

    /**
     * Request timers alone (no counters bound), for a node without a metrics endpoint: STATS still has latencies.
     * Give it a registry that keeps percentile-histogram buckets (a {@code PrometheusMeterRegistry}; Micrometer's
     * {@code SimpleMeterRegistry} keeps none, and {@link #summary} would show only the max).
     */
    public static ServerMeters timersOnly(final MeterRegistry registry)
    {
        return new ServerMeters(registry, null);
    }

    /**
     * {@code count=N mean=Xus p50<=Yus p99<=Zus max=Wus} for one operation: quantiles as the histogram bucket that
     * holds them (upper bound, as Prometheus' histogram_quantile reads them), max since the start (as count, mean
     * and the buckets).
     */
    public String summary(final Operation operation)
    {
        final HistogramSnapshot s = timers.get(operation).takeSnapshot();
        if (s.count() == 0)
        {
            return "count=0";
        }
        return "count=" + s.count() + " mean=" + micros(s.mean(TimeUnit.NANOSECONDS)) +
            "us p50<=" + micros(bucketOf(s, 0.5)) + "us p99<=" + micros(bucketOf(s, 0.99)) +
            "us max=" + micros(Math.max(maxNanos.get(operation).get(), s.max(TimeUnit.NANOSECONDS))) + "us";
    }

    /**
     * Upper bound (ns) of the first bucket holding the {@code q} quantile of the values the buckets hold (a registry's
     * buckets may cover a recent window while {@code count()} covers all time, so the rank is taken over the buckets'
     * own population); cumulative and per-bucket counts are both read right. The max when the buckets hold nothing.
     */
    static double bucketOf(final HistogramSnapshot s, final double q)
    {
        final CountAtBucket[] buckets = s.histogramCounts();
        boolean cumulative = true;
        double sum = 0;
        for (int i = 0; i < buckets.length; i++)
        {
            cumulative &= i == 0 || buckets[i].count() >= buckets[i - 1].count();
            sum += buckets[i].count();
        }
        final double total = buckets.length == 0 ? 0 : cumulative ? buckets[buckets.length - 1].count() : sum;
        if (total == 0)
        {
            return s.max(TimeUnit.NANOSECONDS);
        }
        double seen = 0;
        for (final CountAtBucket b : buckets)
        {
            seen = cumulative ? b.count() : seen + b.count();
            if (seen >= q * total)
            {
                return b.bucket(TimeUnit.NANOSECONDS);
            }
        }
        return s.max(TimeUnit.NANOSECONDS);
    }

    private static String micros(final double nanos)
    {
        return String.format(java.util.Locale.ROOT, "%.1f", nanos / 1000.0);
    }

    private ServerMeters(final MeterRegistry statsRegistry, final MeterRegistry exportRegistry)
    {
        for (final Operation op : Operation.values())
        {
            timers.put(op, Timer.builder("rdmakv.server.request")
                .tag("op", op.tag())
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(500))
                .maximumExpectedValue(Duration.ofSeconds(1))
                .register(statsRegistry));
            maxNanos.put(op, new LongAccumulator(Math::max, 0));
            if (exportRegistry != null)
            {
                exported.put(op, Timer.builder("rdmakv.server.request")
                    .description("Time on the request thread per request (PUT: until written or batched for commit)")
                    .tag("op", op.tag())
                    .serviceLevelObjectives(SLO_BUCKETS)
                    .register(exportRegistry));
            }
        }
    }

    /**
     * Bind {@code counters} (counters and the gauges registered so far) to {@code registry}.
     *
     * @return the request timer for the request handler.
     */
    public static ServerMeters bind(final MeterRegistry registry, final ServerCounters counters)
    {
        for (final ServerCounter c : ServerCounter.values())
        {
            final String name = MeterCatalog.name(c);
            if (MeterCatalog.LEVELS.contains(c))
            {
                Gauge.builder(name, counters, cs -> cs.get(c)).description(MeterCatalog.help(c)).register(registry);
            }
            else
            {
                FunctionCounter.builder(name, counters, cs -> cs.get(c)).description(MeterCatalog.help(c))
                    .register(registry);
            }
            final String cause = REJECTS.get(c);
            if (cause != null)
            {
                FunctionCounter.builder("rdmakv.server.rejects", counters, cs -> cs.get(c))
                    .description("Requests and connections refused, by cause").tag("cause", cause).register(registry);
            }
        }
        for (final String label : counters.gaugeLabels())
        {
            final MeterCatalog.GaugeExport export = MeterCatalog.GAUGES.get(label);
            if (export == null)
            {
                continue; // MeterCatalog.GAUGES_NOT_EXPORTED: another family carries it
            }
            if (export.total())
            {
                FunctionCounter.builder(export.name(), counters, cs -> cs.gauge(label)).description(export.help())
                    .register(registry);
            }
            else
            {
                gauge(registry, export.name(), export.help(), () -> counters.gauge(label));
            }
        }
        return new ServerMeters(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), registry);
    }

    /** A gauge over any long source (no strong reference is needed: the registry holds the supplier). */
    static void gauge(final MeterRegistry registry, final String name, final String help, final LongSupplier value)
    {
        final ToDoubleFunction<LongSupplier> read = LongSupplier::getAsLong;
        Gauge.builder(name, value, read).description(help).strongReference(true).register(registry);
    }

    @Override
    public void record(final Operation operation, final long nanos)
    {
        timers.get(operation).record(nanos, TimeUnit.NANOSECONDS);
        final Timer export = exported.get(operation);
        if (export != null)
        {
            export.record(nanos, TimeUnit.NANOSECONDS);
        }
        maxNanos.get(operation).accumulate(nanos);
    }
}
