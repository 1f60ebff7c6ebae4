package io.rdmakv.bench;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The side-by-side latency report renders: .hgrm text as {@code rdmakv bench --hgrm} writes it is parsed, the PNG
 * exists and decodes at the chart's size, and every series is in the chart and drawn in its colour.
 */
class LatencyReportTest
{
    @TempDir
    Path dir;

    @Test
    void shouldParseWhatHdrHistogramWrites() throws IOException
    {
        final HgrmFile f = HgrmFile.read("a", hgrm("a.hgrm", 10, 1000));
        assertEquals(1000.0, f.max(), 1.0, "the 100th percentile row is the max");
        assertEquals(505.0, f.valueAt(0.5), 5.0, "p50 of 10..1000 us in steps of 10");
        assertTrue(f.percentiles()[f.percentiles().length - 1] < 1.0, "no infinite point");
    }

    @Test
    void shouldRenderEachServerAsASeriesOfAPng() throws IOException
    {
        final Path rdmakv = hgrm("rdmakv-GET.hgrm", 20, 200);
        final Path redis = hgrm("redis-GET.hgrm", 30, 3000);
        final Path png = dir.resolve("out/get.png");
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();

        final int code = LatencyReport.run(new String[] {"--out", png.toString(), "--title", "GET",
            "rdmakv=" + rdmakv, "redis=" + redis}, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        assertTrue(Files.size(png) > 0, "the PNG exists");
        final BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, "decodes as an image");
        assertEquals(LatencyReport.WIDTH, image.getWidth());
        assertEquals(LatencyReport.HEIGHT, image.getHeight());
        assertTrue(countPixels(image, LatencyReport.COLORS[0]) > 100, "rdmakv's line is drawn");
        assertTrue(countPixels(image, LatencyReport.COLORS[1]) > 100, "redis's line is drawn");

        final XYChart chart = LatencyReport.chart("GET", List.of(HgrmFile.read("rdmakv", rdmakv),
            HgrmFile.read("redis", redis)));
        assertEquals(2, chart.getSeriesMap().size());
        assertTrue(chart.getSeriesMap().keySet().stream().anyMatch(name -> name.startsWith("rdmakv (p50 ")));
        assertTrue(chart.getSeriesMap().keySet().stream().anyMatch(name -> name.startsWith("redis (p50 ")));
    }

    @Test
    void shouldRefuseAFileWithoutPercentiles() throws IOException
    {
        final Path bad = Files.writeString(dir.resolve("bad.hgrm"), "hello\n");
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = LatencyReport.run(new String[] {"--out", dir.resolve("x.png").toString(), "x=" + bad},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("bad.hgrm"), err.toString(StandardCharsets.UTF_8));
        assertTrue(Files.notExists(dir.resolve("x.png")));
    }

    /** Latencies from..to us in steps of {@code from}, in nanoseconds, written as bench writes them (us). */
    private Path hgrm(final String name, final long from, final long to) throws IOException
    {
        final Histogram h = new Histogram(60_000_000_000L, 3);
        for (long us = from; us <= to; us += from)
        {
            h.recordValue(us * 1000);
        }
        final Path file = dir.resolve(name);
        try (PrintStream ps = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8))
        {
            h.outputPercentileDistribution(ps, 1000.0);
        }
        return file;
    }

    private static int countPixels(final BufferedImage image, final Color color)
    {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++)
        {
            for (int x = 0; x < image.getWidth(); x++)
            {
                if ((image.getRGB(x, y) & 0xFFFFFF) == (color.getRGB() & 0xFFFFFF))
                {
                    n++;
                }
            }
        }
        return n;
    }
}
