package io.rdmakv.bench.perf;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Prints results the way perftest does, so the figures sit next to {@code ib_read_lat} / {@code ib_send_lat} /
 * {@code ib_read_bw} output: {@code t_typical} is the median (p50), latencies in microseconds. {@code send-lat}
 * reports half the round trip, as perftest's {@code ib_send_lat} does.
 */
final class PerfReport
{
    static final String RULE =
        "---------------------------------------------------------------------------------------";
    private static final String LAT_HEADER =
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]" +
        "   99% percentile[usec]   99.9% percentile[usec]";
    private static final String BW_HEADER =
        " #bytes     #iterations    BW average[MB/sec]   MsgRate[Mpps]";

    private final PrintStream out;

    PerfReport(final PrintStream out)
    {
        this.out = out;
    }

    void banner(final String title, final String transport, final String mode, final String details)
    {
        out.println(RULE);
        out.printf(Locale.ROOT, "                    %s%n", title);
        out.printf(Locale.ROOT, " Transport        : %s%n", transport);
        out.printf(Locale.ROOT, " Mode             : %s%n", mode);
        out.printf(Locale.ROOT, " %s%n", details);
        out.println(RULE);
    }

    void latencyHeader()
    {
        out.println(LAT_HEADER);
    }

    /**
     * One latency line.
     *
     * @param divisor 1 for one-sided reads, 2 for send round trips (half a round trip, as perftest).
     */
    void latencyLine(final int bytes, final Histogram h, final double divisor)
    {
        final double us = 1000.0 * divisor;
        out.printf(Locale.ROOT, " %-7d %-10d     %-10.2f     %-10.2f   %-10.2f        %-10.2f     %-10.2f" +
            "      %-10.2f             %-10.2f%n",
            bytes, h.getTotalCount(), h.getMinValue() / us, h.getMaxValue() / us, h.getValueAtPercentile(50) / us,
            h.getMean() / us, h.getStdDeviation() / us, h.getValueAtPercentile(99) / us,
            h.getValueAtPercentile(99.9) / us);
    }

    void bandwidthHeader()
    {
        out.println(BW_HEADER);
    }

    void bandwidthLine(final int bytes, final int iterations, final long elapsedNanos)
    {
        final double seconds = elapsedNanos / 1e9;
        final double mbPerSecond = (double)bytes * iterations / seconds / (1 << 20);
        final double mpps = iterations / seconds / 1e6;
        out.printf(Locale.ROOT, " %-10d %-10d     %-14.2f       %-10.6f%n", bytes, iterations, mbPerSecond, mpps);
    }

    void rule()
    {
        out.println(RULE);
    }
}
