package io.rdmakv.it.support.history;

import java.util.List;
import java.util.Locale;

/**
 * What a recorded history says about the run behind it, for the figures a fault test prints: how many calls were
 * answered, how many were not, and how long the answered ones took (nearest-rank percentiles). Figures only, never a
 * verdict: {@link LinearizabilityChecker} judges the history.
 *
 * @param operations  operations in the history.
 * @param answered    operations that ended OK (a GET's answer, NOT_FOUND included, or an acknowledged write).
 * @param notAnswered operations that failed or timed out (or were still open).
 * @param p50Millis   median time from invocation to answer of the answered ones (0 when none was answered).
 * @param p99Millis   99th percentile of the same.
 * @param maxMillis   the slowest answer.
 */
public record HistoryFigures(int operations, int answered, int notAnswered, double p50Millis, double p99Millis,
    double maxMillis)
{
    /** The figures of {@code history}. */
    public static HistoryFigures of(final List<Operation> history)
    {
        final long[] nanos = history.stream().filter(op -> op.outcome() == Operation.Outcome.OK)
            .mapToLong(op -> op.completeNanos() - op.invokeNanos()).sorted().toArray();
        return new HistoryFigures(history.size(), nanos.length, history.size() - nanos.length,
            millis(percentile(nanos, 50)), millis(percentile(nanos, 99)),
            millis(nanos.length == 0 ? 0 : nanos[nanos.length - 1]));
    }

    /** Nearest rank: the smallest value with at least {@code p} percent of the values at or below it. */
    private static long percentile(final long[] sorted, final int p)
    {
        if (sorted.length == 0)
        {
            return 0;
        }
        final int rank = (int)Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    private static double millis(final long nanos)
    {
        return nanos / 1_000_000.0;
    }

    @Override
    public String toString()
    {
        return String.format(Locale.ROOT, "%d of %d operations answered (%d failed or timed out); answered in p50 " +
            "%.1f ms, p99 %.1f ms, max %.1f ms", answered, operations, notAnswered, p50Millis, p99Millis, maxMillis);
    }
}
