package io.rdmakv.transport.verbs;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.MemoryWindow;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.conformance.AbstractMemoryWindowConformanceTest;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The memory-window suite over verbs (type 2 windows bound on the target endpoint's QP), and what a window costs:
 * a bind (alloc_mw + the bind work request's completion), a local invalidation, a dealloc, and a 128-byte read
 * through a window against one through the region's own key, interleaved in blocks so that both see the same load.
 * The figures are printed and, in the SoftRoCE guest, written to {@code $RDMAKV_RESULTS/memory-windows.properties};
 * under emulation only their ratios within one run mean anything. Skips with the probe's cause where verbs is
 * unavailable, and where the device has no type 2 windows.
 */
class VerbsMemoryWindowConformanceTest extends AbstractMemoryWindowConformanceTest
{
    private static final int CONNECT_SECONDS = 60;
    private static final int BINDS = 200;
    private static final int READ_BLOCK = 250;
    private static final int READ_ROUNDS = 4;

    @Override
    protected TransportProvider provider()
    {
        return new VerbsTransportProvider();
    }

    /**
     * {@link VerbsTestConfig}'s, with a connect timeout of {@value #CONNECT_SECONDS} s (the server's handshake
     * timeout twice that): each test connects two or three times, and the first connect of the guest's cold JVM
     * timed out at 15 s once (the first test of the class, 70 s in all, on 2026-12-07).
     */
    @Override
    protected TransportConfig config()
    {
        return VerbsTestConfig.adapt(super.config().toBuilder()
            .connectTimeout(Duration.ofSeconds(CONNECT_SECONDS))
            .property("verbs.handshakeTimeoutMs", Long.toString(2_000L * CONNECT_SECONDS))
            .build());
    }

    @Test
    @Timeout(600)
    void shouldMeasureWhatAWindowCosts() throws Exception
    {
        final Connection c = connect();
        assumeTrue(c.server().transport.capabilities().has(TransportCapability.MEMORY_WINDOWS),
            "the device has no type 2 memory windows: test skipped");
        final Region region = windowRegion(c.server().transport);
        final Endpoint target = c.serverEndpoint();
        for (int i = 0; i < 20; i++)
        {
            bind(target, region, 0, WINDOW_REGION).close(); // warm-up: JIT, the provider's paths
        }
        final long[] bindNs = new long[BINDS];
        final long[] invalidateNs = new long[BINDS];
        final long[] deallocNs = new long[BINDS];
        for (int i = 0; i < BINDS; i++)
        {
            final long t0 = System.nanoTime();
            final MemoryWindow w = bind(target, region, 0, WINDOW_REGION);
            final long t1 = System.nanoTime();
            w.invalidate().get(60, TimeUnit.SECONDS);
            final long t2 = System.nanoTime();
            w.close();
            final long t3 = System.nanoTime();
            bindNs[i] = t1 - t0;
            invalidateNs[i] = t2 - t1;
            deallocNs[i] = t3 - t2;
        }

        final MemoryWindow window = closeLater(bind(target, region, 0, WINDOW_REGION));
        final RemoteKey poolKey = region.registration().remoteKey();
        final Endpoint ep = c.clientEndpoint();
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
        final long[] viaWindow = new long[READ_BLOCK * READ_ROUNDS];
        final long[] viaRegion = new long[READ_BLOCK * READ_ROUNDS];
        for (int round = 0; round < READ_ROUNDS + 1; round++)
        {
            final boolean warmUp = round == 0;
            for (int k = 0; k < 2; k++)
            {
                final boolean throughWindow = (round + k) % 2 == 0;
                final RemoteKey key = throughWindow ? window.remoteKey() : poolKey;
                final long[] into = throughWindow ? viaWindow : viaRegion;
                for (int i = 0; i < READ_BLOCK; i++)
                {
                    final int offset = (i * 4096 + round * 128) % (WINDOW_REGION - 128);
                    final long t0 = System.nanoTime();
                    assertEquals(TransportStatus.OK,
                        statusOf(ep.readAsync(region.base() + offset, key, 128, dst, 0)));
                    final long t = System.nanoTime() - t0;
                    if (!warmUp)
                    {
                        into[(round - 1) * READ_BLOCK + i] = t;
                    }
                    assertEquals(pattern(offset + 127), dst.getByte(127));
                }
            }
        }

        final String figures = String.join("\n",
            "mw.bind.p50Us=" + us(percentile(bindNs, 50)),
            "mw.bind.avgUs=" + us(average(bindNs)),
            "mw.bind.p99Us=" + us(percentile(bindNs, 99)),
            "mw.invalidate.p50Us=" + us(percentile(invalidateNs, 50)),
            "mw.invalidate.avgUs=" + us(average(invalidateNs)),
            "mw.dealloc.p50Us=" + us(percentile(deallocNs, 50)),
            "mw.dealloc.avgUs=" + us(average(deallocNs)),
            "mw.read128.window.p50Us=" + us(percentile(viaWindow, 50)),
            "mw.read128.window.avgUs=" + us(average(viaWindow)),
            "mw.read128.region.p50Us=" + us(percentile(viaRegion, 50)),
            "mw.read128.region.avgUs=" + us(average(viaRegion)),
            "mw.read128.windowOverRegion.p50=" + String.format(Locale.ROOT, "%.3f",
                (double)percentile(viaWindow, 50) / percentile(viaRegion, 50)),
            "mw.bind.overRead128.p50=" + String.format(Locale.ROOT, "%.2f",
                (double)percentile(bindNs, 50) / percentile(viaRegion, 50)),
            "mw.binds=" + BINDS,
            "mw.reads=" + viaWindow.length + " each way") + "\n";
        System.out.print("memory-window figures:\n" + figures);
        write(figures);
    }

    private static void write(final String figures) throws IOException
    {
        final String results = System.getenv("RDMAKV_RESULTS");
        if (results != null && Files.isDirectory(Path.of(results)))
        {
            Files.writeString(Path.of(results, "memory-windows.properties"), figures, StandardCharsets.UTF_8);
        }
    }

    private static long percentile(final long[] values, final int p)
    {
        final long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)];
    }

    private static long average(final long[] values)
    {
        long sum = 0;
        for (final long v : values)
        {
            sum += v;
        }
        return sum / values.length;
    }

    private static String us(final long nanos)
    {
        return String.format(Locale.ROOT, "%.1f", nanos / 1000.0);
    }
}
