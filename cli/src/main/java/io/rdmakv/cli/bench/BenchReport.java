package io.rdmakv.cli.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.cli.Json;
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

    /** The result as one JSON document (Jackson): counts and microseconds are numbers, a figure not measured null. */
    public static String json(final String driverName, final BenchSettings s, final BenchResult r)
    {
        final ObjectNode root = Json.mapper().createObjectNode();
        root.put("driver", driverName).put("target", r.driverLine()).put("workload", s.workload().name());
        root.putObject("mix").put("get", s.workload().getPercent()).put("put", s.workload().putPercent())
            .put("insert", s.workload().insertPercent());
        root.put("distribution", s.distribution()).put("keys", s.keys()).put("keySize", s.keySize())
            .put("valueSize", s.valueSize()).put("connections", s.connections()).put("threads", s.threads())
            .put("inFlight", s.inFlight());
        num(root, "measuredSeconds", r.measuredNanos() / 1e9);
        num(root, "throughput", r.throughput(r.totalOps()));
        final ObjectNode operations = root.putObject("operations");
        for (final Map.Entry<OpType, Histogram> e : r.histograms().entrySet())
        {
            final Histogram h = e.getValue();
            final ObjectNode op = operations.putObject(e.getKey().name()).put("count", h.getTotalCount());
            num(op, "throughput", r.throughput(h.getTotalCount()));
            op.put("errors", r.errors().getOrDefault(e.getKey(), 0L));
            num(op, "p50Us", us(h.getValueAtPercentile(50)));
            num(op, "p90Us", us(h.getValueAtPercentile(90)));
            num(op, "p99Us", us(h.getValueAtPercentile(99)));
            num(op, "p999Us", us(h.getValueAtPercentile(99.9)));
            num(op, "maxUs", us(h.getMaxValue()));
            num(op, "meanUs", us(h.getMean()));
        }
        root.put("getHits", r.getHits());
        final Histogram gets = r.histograms().get(OpType.GET);
        num(root, "singleReadGetShare", gets == null || gets.getTotalCount() == 0 ? Double.NaN :
            (double)r.counterDeltas().getOrDefault(CACHE_SERVICE[0], 0L) / gets.getTotalCount());
        r.counterDeltas().forEach(root.putObject("clientCounters")::put);
        r.serverCounterDeltas().forEach(root.putObject("serverCounters")::put);
        num(root, "serverCpuUsPerOp", r.serverCpuNanos() >= 0 && r.totalOps() > 0 ?
            r.serverCpuNanos() / 1000.0 / r.totalOps() : Double.NaN);
        num(root, "generatorCpuUsPerOp", r.generatorCpuNanos() >= 0 && r.totalOps() > 0 ?
            r.generatorCpuNanos() / 1000.0 / r.totalOps() : Double.NaN);
        num(root, "generatorJvmCpuUsPerOp", r.generatorJvmCpuNanos() >= 0 && r.totalOps() > 0 ?
            r.generatorJvmCpuNanos() / 1000.0 / r.totalOps() : Double.NaN);
        num(root, "serverCpuShare", r.serverCpuNanos() >= 0 && r.measuredNanos() > 0 ?
            (double)r.serverCpuNanos() / r.measuredNanos() : Double.NaN);
        if (r.serverPid() >= 0)
        {
            root.put("serverPid", r.serverPid());
        }
        else
        {
            root.putNull("serverPid");
        }
        return Json.pretty(root) + "\n";
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

    /** {@code v} to three decimals, or null when it was not measured (NaN, infinite). */
    private static void num(final ObjectNode o, final String name, final double v)
    {
        if (Double.isFinite(v))
        {
            o.put(name, Math.round(v * 1000) / 1000.0);
        }
        else
        {
            o.putNull(name);
        }
    }
}
