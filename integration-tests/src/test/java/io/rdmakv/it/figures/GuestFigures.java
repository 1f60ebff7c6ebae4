package io.rdmakv.it.figures;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What the guest figure tests share: the workload shape of the latency figures (so that the PUT measured through the
 * store and the RocksDB write measured alone write the same keys and values) and the writer of a results file.
 *
 * <pre>
 *   key i:            "figures-key-" + i, ASCII (13 to 15 bytes for KEYS = 500)
 *   value (round, i): VALUE_BYTES bytes, every byte (round * 31 + i), so each overwrite round is told apart
 *   results file:     $RDMAKV_RESULTS/NAME (the guest job's results/), "key=value" lines under a "# title" line;
 *                     printed to stdout as well, and only printed when RDMAKV_RESULTS is unset
 * </pre>
 * Latencies are recorded in nanoseconds and reported in microseconds with one decimal.
 */
final class GuestFigures
{
    /** Distinct keys of the latency workload. */
    static final int KEYS = 500;

    /** Value size of the latency workload: a small value, one extent of about 140 bytes with its key. */
    static final int VALUE_BYTES = 100;

    private GuestFigures()
    {
    }

    static byte[] key(final int index)
    {
        return ("figures-key-" + index).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(final int round, final int index)
    {
        final byte[] value = new byte[VALUE_BYTES];
        Arrays.fill(value, (byte)(round * 31 + index));
        return value;
    }

    /** A histogram of nanoseconds with 3 significant digits. */
    static Histogram nanosHistogram()
    {
        return new Histogram(3);
    }

    /** {@code PREFIX.p50.us}, {@code .avg.us}, {@code .p99.us} and {@code .count} of a nanosecond histogram. */
    static void putLatency(final Map<String, String> figures, final String prefix, final Histogram nanos)
    {
        figures.put(prefix + ".p50.us", micros(nanos.getValueAtPercentile(50)));
        figures.put(prefix + ".avg.us", micros(nanos.getMean()));
        figures.put(prefix + ".p99.us", micros(nanos.getValueAtPercentile(99)));
        figures.put(prefix + ".count", Long.toString(nanos.getTotalCount()));
    }

    static String micros(final double nanos)
    {
        return String.format(Locale.ROOT, "%.1f", nanos / 1000.0);
    }

    static Map<String, String> figures()
    {
        return new LinkedHashMap<>();
    }

    /** Writes {@code figures} to the results file {@code name} (see the class comment) and prints them. */
    static void record(final String name, final String title, final Map<String, String> figures) throws IOException
    {
        final StringBuilder text = new StringBuilder("# ").append(title).append('\n');
        figures.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        System.out.print(text);
        final String results = System.getenv("RDMAKV_RESULTS");
        if (results != null)
        {
            Files.writeString(Path.of(results, name), text.toString());
        }
    }
}
