package io.rdmakv.bench;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.Color;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Side-by-side latency distributions as a PNG, drawn by XChart from {@code .hgrm} files: one line per server, the
 * percentile as 1/(1-p) on a log axis (10 = p90, 100 = p99, 1000 = p99.9: evenly spaced, as in HdrHistogram's own
 * plots), latency in microseconds on a log axis. Series colours come from {@link #COLORS} in order. (No tick-label
 * function: XChart's tick calculator loops for ever when a custom label function yields labels it cannot fit.)
 *
 * <pre>
 *   java -jar benchmarks.jar report --out get.png [--title T] rdmakv=a-GET.hgrm redis=b-GET.hgrm
 * </pre>
 */
public final class LatencyReport
{
    /** Series colours, in the order the files are given (distinct for up to six series). */
    public static final Color[] COLORS = {
        new Color(0x1F, 0x77, 0xB4), new Color(0xD6, 0x27, 0x28), new Color(0x2C, 0xA0, 0x2C),
        new Color(0xFF, 0x7F, 0x0E), new Color(0x94, 0x67, 0xBD), new Color(0x8C, 0x56, 0x4B),
    };
    static final int WIDTH = 1000;
    static final int HEIGHT = 600;

    private LatencyReport()
    {
    }

    /** Build the chart of {@code files} (one series each, named by its label). */
    public static XYChart chart(final String title, final List<HgrmFile> files)
    {
        if (files.isEmpty() || files.size() > COLORS.length)
        {
            throw new IllegalArgumentException("1 to " + COLORS.length + " distributions, not " + files.size());
        }
        final XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
            .xAxisTitle("1/(1-percentile): 2 = p50, 10 = p90, 100 = p99, 1000 = p99.9").yAxisTitle("latency (us)").build();
        final XYStyler styler = chart.getStyler();
        styler.setYAxisLogarithmic(true);
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setXAxisLogarithmic(true);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setAntiAlias(true);
        for (int i = 0; i < files.size(); i++)
        {
            final HgrmFile f = files.get(i);
            final double[] x = new double[f.percentiles().length];
            final double[] y = new double[x.length];
            for (int j = 0; j < x.length; j++)
            {
                x[j] = 1.0 / (1.0 - f.percentiles()[j]);
                y[j] = Math.max(f.values()[j], 0.001);
            }
            final String name = String.format(Locale.ROOT, "%s (p50 %.1f, p99 %.1f, p99.9 %.1f, max %.1f us)",
                f.label(), f.valueAt(0.5), f.valueAt(0.99), f.valueAt(0.999), f.max());
            final XYSeries series = chart.addSeries(name, x, y);
            series.setMarker(SeriesMarkers.NONE);
            series.setLineColor(COLORS[i]);
            series.setLineWidth(2.5f);
        }
        return chart;
    }

    /** Render {@code files} to a PNG at {@code out}. */
    public static void writePng(final Path out, final String title, final List<HgrmFile> files) throws IOException
    {
        final Path parent = out.toAbsolutePath().getParent();
        if (parent != null)
        {
            Files.createDirectories(parent);
        }
        BitmapEncoder.saveBitmap(chart(title, files), out.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** {@code report --out FILE.png [--title T] label=file.hgrm ...}; returns the exit code. */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        System.setProperty("java.awt.headless", "true");
        Path target = null;
        String title = "latency distribution";
        final List<HgrmFile> files = new ArrayList<>();
        try
        {
            for (int i = 0; i < args.length; i++)
            {
                switch (args[i])
                {
                    case "--out" -> target = Path.of(args[++i]);
                    case "--title" -> title = args[++i];
                    default ->
                    {
                        final int eq = args[i].indexOf('=');
                        if (eq <= 0)
                        {
                            throw new IllegalArgumentException("expected label=file.hgrm, got '" + args[i] + "'");
                        }
                        files.add(HgrmFile.read(args[i].substring(0, eq), Path.of(args[i].substring(eq + 1))));
                    }
                }
            }
            if (target == null)
            {
                throw new IllegalArgumentException("--out FILE.png is required");
            }
            writePng(target, title, files);
            out.println("wrote " + target);
            return 0;
        }
        catch (final IllegalArgumentException | IOException | ArrayIndexOutOfBoundsException ex)
        {
            err.println("report: " + ex.getMessage());
            err.println("usage: report --out FILE.png [--title T] label=file.hgrm ...");
            return 2;
        }
    }
}
