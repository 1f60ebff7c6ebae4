package io.rdmakv.cli.bench;

import org.HdrHistogram.Histogram;

import java.util.EnumMap;
import java.util.Map;

/**
 * What a run measured.
 *
 * @param histograms      latency per operation type, in nanoseconds (only types that ran).
 * @param errors          failed operations per type.
 * @param getHits         GETs that found a value.
 * @param measuredNanos   wall time of the measured phase, drained operations included.
 * @param loadOps         keys written by the load phase (0 when skipped).
 * @param loadNanos       its wall time.
 * @param counterDeltas   driver counters over the measured phase (how rdmakv served GETs), may be empty.
 * @param serverCounterDeltas the store's own counters (summed over its nodes) from just before to just after the
 *                        measured phase, a window inside {@code counterDeltas}' (rdmakv: {@code gets.rpc}, the GETs
 *                        the nodes answered by RPC), may be empty.
 * @param serverCpuNanos  server process CPU time over the measured phase, or -1 when unknown.
 * @param serverPid       the pid it was read from, or -1.
 * @param generatorCpuNanos this (the generator's) process CPU time over the measured phase, or -1 when unknown.
 * @param generatorJvmCpuNanos the part of it spent by the JVM's own threads (JIT compilers, GC, VM thread), or -1.
 * @param driverLine      the driver's description.
 */
public record BenchResult(
    EnumMap<OpType, Histogram> histograms,
    EnumMap<OpType, Long> errors,
    long getHits,
    long measuredNanos,
    long loadOps,
    long loadNanos,
    Map<String, Long> counterDeltas,
    Map<String, Long> serverCounterDeltas,
    long serverCpuNanos,
    long serverPid,
    long generatorCpuNanos,
    long generatorJvmCpuNanos,
    String driverLine)
{
    /** Operations completed in the measured phase, all types. */
    public long totalOps()
    {
        long n = 0;
        for (final Histogram h : histograms.values())
        {
            n += h.getTotalCount();
        }
        return n;
    }

    public double throughput(final long ops)
    {
        return measuredNanos <= 0 ? 0 : ops * 1e9 / measuredNanos;
    }

    /** Every type's latencies together. */
    public Histogram all()
    {
        final Histogram all = BenchRunner.newHistogram();
        histograms.values().forEach(all::add);
        return all;
    }

    public long totalErrors()
    {
        return errors.values().stream().mapToLong(Long::longValue).sum();
    }
}
