package io.rdmakv.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A latency distribution read from HdrHistogram's percentile text ({@code .hgrm}, what
 * {@code Histogram.outputPercentileDistribution} writes and {@code rdmakv bench --hgrm} records): rows of
 * {@code Value Percentile TotalCount 1/(1-Percentile)} between a header line and {@code #[...]} footer lines. The
 * 100th-percentile row (without the last column, or {@code inf} there) is kept as {@link #max}, not as a point.
 *
 * @param label       the series name (a server, a run).
 * @param values      latency at each point, in the file's unit (bench writes microseconds).
 * @param percentiles the percentile of each point, in [0, 1).
 * @param max         the largest value recorded.
 */
public record HgrmFile(String label, double[] values, double[] percentiles, double max)
{
    /**
     * Parse {@code file}.
     *
     * @throws IOException when it cannot be read.
     * @throws IllegalArgumentException when it holds no percentile rows, naming the file.
     */
    public static HgrmFile read(final String label, final Path file) throws IOException
    {
        final List<double[]> rows = new ArrayList<>();
        double max = Double.NaN;
        for (final String raw : Files.readAllLines(file, StandardCharsets.UTF_8))
        {
            final String line = raw.trim();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("Value"))
            {
                continue;
            }
            final String[] f = line.split("\\s+");
            if (f.length != 4 && f.length != 3)
            {
                throw new IllegalArgumentException(file + ": not an .hgrm percentile row: '" + line + "'");
            }
            final double value = number(file, f[0]);
            final double percentile = number(file, f[1]);
            if (f.length == 3 || f[3].toLowerCase(Locale.ROOT).equals("inf") || percentile >= 1.0)
            {
                max = value;
                continue;
            }
            rows.add(new double[] {value, percentile});
        }
        if (rows.isEmpty())
        {
            throw new IllegalArgumentException(file + ": no percentile rows (an empty histogram, or not .hgrm text)");
        }
        final double[] values = new double[rows.size()];
        final double[] percentiles = new double[rows.size()];
        for (int i = 0; i < rows.size(); i++)
        {
            values[i] = rows.get(i)[0];
            percentiles[i] = rows.get(i)[1];
        }
        return new HgrmFile(label, values, percentiles, Double.isNaN(max) ? values[values.length - 1] : max);
    }

    /** The value at the first point at or above {@code percentile} (in [0, 1)). */
    public double valueAt(final double percentile)
    {
        for (int i = 0; i < percentiles.length; i++)
        {
            if (percentiles[i] >= percentile)
            {
                return values[i];
            }
        }
        return max;
    }

    private static double number(final Path file, final String text)
    {
        try
        {
            return Double.parseDouble(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(file + ": '" + text + "' is not a number", ex);
        }
    }
}
