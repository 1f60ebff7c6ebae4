package io.rdmakv.cli.bench;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The end-of-run output: a table per operation (throughput, p50/p90/p99/p99.9/max in microseconds, errors), how
 * rdmakv served its GETs (the client's counters over the measured phase, and the share done in a single read through
 * the location cache), the server's CPU time per operation, and
 * on request the same as JSON and one HdrHistogram {@code .hgrm} percentile file per operation (values in
 * microseconds) for plotting.
 */
public final class BenchReport
{
    private static final String[] GET_SERVICE = {
        "get.oneSided.hits", "get.oneSided.tornRetries", "get.oneSided.fallbacks", "get.oneSided.misses",
        "get.oneSided.missLookups", "rpc.requests"};
    private static final String[] CACHE_SERVICE = {"get.cache.hits", "get.cache.misses", "get.cache.invalidations"};

    private BenchReport()
    {
    }

    /** The header: what runs against what. */
    public static void printHeader(final PrintStream out, final String driverName, final String driverLine,
        final BenchSettings s)
    {
        out.printf(Locale.ROOT, "rdmakv bench: driver %s (%s)%n", driverName, driverLine);
        out.printf(Locale.ROOT, "workload %s, %s over %,d keys, key %d B, value %d B%n", s.workload().describe(),
            s.distribution(), s.keys(), s.keySize(), s.valueSize());
        out.printf(Locale.ROOT, "%d connections, %d threads, %d in flight per connection; warm-up %s; %s%n%n",
            s.connections(), s.threads(), s.inFlight(), seconds(s.warmup().toNanos()),
            s.operations() > 0 ? String.format(Locale.ROOT, "%,d operations", s.operations()) :
            "measured " + seconds(s.duration().toNanos()));
        out.flush();
    }

    public static void printResult(final PrintStream out, final BenchResult r, final String firstError)
    {
        if (r.loadOps() > 0)
        {
            out.printf(Locale.ROOT, "load        %,d keys in %s (%,.0f ops/s)%n%n", r.loadOps(),
                seconds(r.loadNanos()), r.loadOps() * 1e9 / Math.max(1, r.loadNanos()));
        }
        out.printf(Locale.ROOT, "%-8s %12s %14s %10s %10s %10s %10s %10s %8s%n",
            "op", "count", "ops/s", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us", "errors");
        for (final Map.Entry<OpType, Histogram> e : r.histograms().entrySet())
        {
            row(out, e.getKey().name(), e.getValue(), r, r.errors().get(e.getKey()));
        }
        if (r.histograms().size() > 1)
        {
            row(out, "ALL", r.all(), r, r.totalErrors());
        }
        out.printf(Locale.ROOT, "%nmeasured    %s, %,.0f ops/s in total%n", seconds(r.measuredNanos()),
            r.throughput(r.totalOps()));
        final Histogram gets = r.histograms().get(OpType.GET);
        if (gets != null)
        {
            out.printf(Locale.ROOT, "GET hits    %,d of %,d (%.1f%%)%n", r.getHits(), gets.getTotalCount(),
                100.0 * r.getHits() / Math.max(1, gets.getTotalCount()));
        }
        if (!r.counterDeltas().isEmpty())
        {
            final List<String> parts = new ArrayList<>();
            for (final String name : GET_SERVICE)
            {
                final Long v = r.counterDeltas().get(name);
                if (v != null)
                {
                    parts.add(name.replace("get.oneSided.", "") + " " + String.format(Locale.ROOT, "%,d", v));
                }
            }
            out.println("GETs served " + String.join(", ", parts) + " (client counters)");
            printCacheService(out, r);
        }
        final Long rpcGets = r.serverCounterDeltas().get("gets.rpc");
        if (rpcGets != null)
        {
            out.printf(Locale.ROOT, "node GETs   %,d answered by RPC (node counters, gets.rpc)%n", rpcGets);
        }
        if (r.serverCpuNanos() >= 0 && r.totalOps() > 0)
        {
            out.printf(Locale.ROOT, "server CPU  %.2f us per op (pid %d: %s of CPU over %,d ops, %.0f%% of a core)%n",
                r.serverCpuNanos() / 1000.0 / r.totalOps(), r.serverPid(), seconds(r.serverCpuNanos()), r.totalOps(),
                100.0 * r.serverCpuNanos() / Math.max(1, r.measuredNanos()));
        }
        else
        {
            out.println("server CPU  unknown (server not local, or give --server-pid)");
        }
        if (r.generatorCpuNanos() >= 0 && r.totalOps() > 0)
        {
            out.printf(Locale.ROOT, "bench CPU   %.2f us per op (this process: %s of CPU, %.0f%% of a core)%n",
                r.generatorCpuNanos() / 1000.0 / r.totalOps(), seconds(r.generatorCpuNanos()),
                100.0 * r.generatorCpuNanos() / Math.max(1, r.measuredNanos()));
            if (r.generatorJvmCpuNanos() >= 0)
            {
                out.printf(Locale.ROOT, "            of which %.2f us per op the JVM's JIT compiler, GC and VM threads%n",
                    r.generatorJvmCpuNanos() / 1000.0 / r.totalOps());
            }
        }
        if (firstError != null)
        {
            out.println("first error " + firstError);
        }
        out.flush();
    }

    /**
     * How the location cache did: one line of its counters, and the share of measured GETs done in a single
     * one-sided read. Printed only when the cache saw GETs (one-sided mode with the cache on).
     */
    private static void printCacheService(final PrintStream out, final BenchResult r)
    {
        final long hits = r.counterDeltas().getOrDefault(CACHE_SERVICE[0], 0L);
        final long misses = r.counterDeltas().getOrDefault(CACHE_SERVICE[1], 0L);
        final long invalidations = r.counterDeltas().getOrDefault(CACHE_SERVICE[2], 0L);
        if (hits + misses + invalidations == 0)
        {
            return;
        }
        final Histogram gets = r.histograms().get(OpType.GET);
        final long getCount = gets == null ? 0 : gets.getTotalCount();
        out.printf(Locale.ROOT, "GET cache   hits %,d, misses %,d, invalidations %,d; %.1f%% of %,d GETs in a " +
            "single read%n", hits, misses, invalidations, 100.0 * hits / Math.max(1, getCount), getCount);
    }

    private static void row(final PrintStream out, final String name, final Histogram h, final BenchResult r,
        final Long errors)
    {
        out.printf(Locale.ROOT, "%-8s %,12d %,14.0f %10.1f %10.1f %10.1f %10.1f %10.1f %,8d%n", name,
            h.getTotalCount(), r.throughput(h.getTotalCount()), us(h.getValueAtPercentile(50)),
            us(h.getValueAtPercentile(90)), us(h.getValueAtPercentile(99)), us(h.getValueAtPercentile(99.9)),
            us(h.getMaxValue()), errors == null ? 0 : errors);
    }

    /** The result as a JSON object (hand-written: every value is a number or a plain string). */
    public static String json(final String driverName, final BenchSettings s, final BenchResult r)
    {
        final StringBuilder b = new StringBuilder(1024);
        b.append("{\n  \"driver\": ").append(quote(driverName));
        b.append(",\n  \"target\": ").append(quote(r.driverLine()));
        b.append(",\n  \"workload\": ").append(quote(s.workload().name()));
        b.append(",\n  \"mix\": {\"get\": ").append(s.workload().getPercent()).append(", \"put\": ")
            .append(s.workload().putPercent()).append(", \"insert\": ").append(s.workload().insertPercent())
            .append('}');
        b.append(",\n  \"distribution\": ").append(quote(s.distribution()));
        b.append(",\n  \"keys\": ").append(s.keys()).append(", \"keySize\": ").append(s.keySize())
            .append(", \"valueSize\": ").append(s.valueSize());
        b.append(",\n  \"connections\": ").append(s.connections()).append(", \"threads\": ").append(s.threads())
            .append(", \"inFlight\": ").append(s.inFlight());
        b.append(",\n  \"measuredSeconds\": ").append(num(r.measuredNanos() / 1e9));
        b.append(",\n  \"throughput\": ").append(num(r.throughput(r.totalOps())));
        b.append(",\n  \"operations\": {");
        boolean first = true;
        for (final Map.Entry<OpType, Histogram> e : r.histograms().entrySet())
        {
            b.append(first ? "\n" : ",\n");
            first = false;
            final Histogram h = e.getValue();
            b.append("    ").append(quote(e.getKey().name())).append(": {\"count\": ").append(h.getTotalCount())
                .append(", \"throughput\": ").append(num(r.throughput(h.getTotalCount())))
                .append(", \"errors\": ").append(r.errors().getOrDefault(e.getKey(), 0L))
                .append(", \"p50Us\": ").append(num(us(h.getValueAtPercentile(50))))
                .append(", \"p90Us\": ").append(num(us(h.getValueAtPercentile(90))))
                .append(", \"p99Us\": ").append(num(us(h.getValueAtPercentile(99))))
                .append(", \"p999Us\": ").append(num(us(h.getValueAtPercentile(99.9))))
                .append(", \"maxUs\": ").append(num(us(h.getMaxValue())))
                .append(", \"meanUs\": ").append(num(us(h.getMean()))).append('}');
        }
        b.append("\n  },\n  \"getHits\": ").append(r.getHits());
        final Histogram gets = r.histograms().get(OpType.GET);
        b.append(",\n  \"singleReadGetShare\": ").append(gets == null || gets.getTotalCount() == 0 ? "null" :
            num((double)r.counterDeltas().getOrDefault(CACHE_SERVICE[0], 0L) / gets.getTotalCount()));
        b.append(",\n  \"clientCounters\": ");
        appendCounters(b, r.counterDeltas());
        b.append(",\n  \"serverCounters\": ");
        appendCounters(b, r.serverCounterDeltas());
        b.append(",\n  \"serverCpuUsPerOp\": ").append(r.serverCpuNanos() >= 0 && r.totalOps() > 0 ?
            num(r.serverCpuNanos() / 1000.0 / r.totalOps()) : "null");
        b.append(",\n  \"generatorCpuUsPerOp\": ").append(r.generatorCpuNanos() >= 0 && r.totalOps() > 0 ?
            num(r.generatorCpuNanos() / 1000.0 / r.totalOps()) : "null");
        b.append(",\n  \"generatorJvmCpuUsPerOp\": ").append(r.generatorJvmCpuNanos() >= 0 && r.totalOps() > 0 ?
            num(r.generatorJvmCpuNanos() / 1000.0 / r.totalOps()) : "null");
        b.append(",\n  \"serverCpuShare\": ").append(r.serverCpuNanos() >= 0 && r.measuredNanos() > 0 ?
            num((double)r.serverCpuNanos() / r.measuredNanos()) : "null");
        b.append(",\n  \"serverPid\": ").append(r.serverPid() >= 0 ? Long.toString(r.serverPid()) : "null");
        b.append("\n}\n");
        return b.toString();
    }

    /** Write {@code <prefix>-<OP>.hgrm} per operation; returns the files written. */
    public static List<Path> writeHgrm(final String prefix, final BenchResult r) throws IOException
    {
        final List<Path> files = new ArrayList<>();
        for (final Map.Entry<OpType, Histogram> e : r.histograms().entrySet())
        {
            final Path file = Path.of(prefix + "-" + e.getKey().name() + ".hgrm");
            final Path parent = file.toAbsolutePath().getParent();
            if (parent != null)
            {
                Files.createDirectories(parent);
            }
            try (PrintStream ps = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8))
            {
                e.getValue().outputPercentileDistribution(ps, 1000.0);
            }
            files.add(file);
        }
        return files;
    }

    private static double us(final double nanos)
    {
        return nanos / 1000.0;
    }

    private static String seconds(final long nanos)
    {
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }

    private static String num(final double v)
    {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "null";
    }

    /** {@code counters} as a JSON object of numbers, in their order. */
    private static void appendCounters(final StringBuilder b, final Map<String, Long> counters)
    {
        b.append('{');
        boolean first = true;
        for (final Map.Entry<String, Long> e : counters.entrySet())
        {
            b.append(first ? "" : ", ").append(quote(e.getKey())).append(": ").append(e.getValue());
            first = false;
        }
        b.append('}');
    }

    static String quote(final String s)
    {
        final StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default ->
                {
                    if (c < 0x20)
                    {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
