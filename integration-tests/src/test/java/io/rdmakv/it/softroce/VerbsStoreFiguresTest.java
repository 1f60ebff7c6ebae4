package io.rdmakv.it.softroce;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.NodeCounters;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store on real verbs, measured in the same guest boot as perftest's baselines (guest-job.sh step 2): a server
 * PROCESS on the verbs transport, this JVM as the client. Records one-sided GET, RPC GET and PUT latencies and the
 * server process's CPU time per GET of each kind into {@code results/rdmakv.properties}, beside
 * {@code results/perftest.properties}, gross and net of the server's idle polling (measured over the same wall time
 * with no traffic), once per {@code verbs.idle} mode ({@code rdmakv-idle-poll.properties} for poll, the old default;
 * {@code rdmakv.properties} for events, the default). Figures are reported, never asserted (emulation on a shared host); what is
 * asserted is the mechanism: every one-sided GET was a hit, and the server handled no request while they ran.
 */
@Tag(SoftRoceGuest.TAG)
class VerbsStoreFiguresTest
{
    private static final int KEYS = 500;
    private static final int VALUE_BYTES = 100;
    private static final int GETS = 3_000;
    private static final long TICKS_PER_SECOND = 100; // USER_HZ on Linux x86-64

    @Test
    @Timeout(1200)
    void shouldServeOneSidedGetsWithoutTheServerAndRecordFigures(@TempDir final Path tmp) throws IOException
    {
        // Both idle modes in the same boot and build: poll (bounded parks, the old default) for comparison, then
        // events (the default), whose figures go to rdmakv.properties under the keys they always had.
        measure(tmp.resolve("node-poll"), "poll", "rdmakv-idle-poll.properties");
        measure(tmp.resolve("node-events"), "events", "rdmakv.properties");
    }

    /** One server process and two clients, both sides with {@code verbs.idle=idle}; figures into {@code file}. */
    private static void measure(final Path dir, final String idle, final String file) throws IOException
    {
        try (ServerProcess server = ServerProcess.builder(dir)
            .name("figures-" + idle).setting("transport", "verbs").setting("pool.size", "64MiB")
            .setting("verbs.idle", idle).start();
            KvClient oneSided = KvClient.builder().server(server.seed()).transport("verbs").getMode(GetMode.AUTO)
                .transportProperty("verbs.idle", idle).connectTimeout(TestTransport.CONNECT_TIMEOUT).build();
            KvClient rpc = KvClient.builder().server(server.seed()).transport("verbs").getMode(GetMode.RPC)
                .transportProperty("verbs.idle", idle).connectTimeout(TestTransport.CONNECT_TIMEOUT).build())
        {
            assertEquals("verbs", oneSided.transport());
            assertEquals(GetMode.ONE_SIDED, oneSided.getMode(), "auto must pick one-sided GETs on native reads");

            final byte[][] keys = new byte[KEYS][];
            final byte[][] values = new byte[KEYS][];
            final Histogram put = new Histogram(3);
            for (int i = 0; i < KEYS; i++)
            {
                keys[i] = ("figures-key-" + i).getBytes(StandardCharsets.US_ASCII);
                values[i] = new byte[VALUE_BYTES];
                Arrays.fill(values[i], (byte)i);
                final long start = System.nanoTime();
                oneSided.put(keys[i], values[i]);
                put.recordValue((System.nanoTime() - start) / 1000);
            }

            // Warm both paths (JIT, first-touch) before measuring.
            runGets(oneSided, keys, values, KEYS, new Histogram(3));
            runGets(rpc, keys, values, KEYS, new Histogram(3));

            final long rpcRequestsBefore = serverGetsByRpc(oneSided);
            final long hitsBefore = oneSided.clientCounters().get(ClientCounter.GET_ONE_SIDED_HITS);
            final Histogram oneSidedGet = new Histogram(3);
            final long cpuBeforeOneSided = cpuTicks(server.pid());
            final long oneSidedStart = System.nanoTime();
            runGets(oneSided, keys, values, GETS, oneSidedGet);
            final long oneSidedNanos = System.nanoTime() - oneSidedStart;
            final long cpuOneSided = cpuTicks(server.pid()) - cpuBeforeOneSided;

            // The server's progress loop costs CPU even with nothing to do (backoff polling, heavier under
            // emulation); measure it over the same wall time with no traffic so the per-GET figures can be net of it.
            final long cpuBeforeIdle = cpuTicks(server.pid());
            final long idleStart = System.nanoTime();
            sleepNanos(oneSidedNanos);
            final double idleTicksPerNano = (double)(cpuTicks(server.pid()) - cpuBeforeIdle) /
                (System.nanoTime() - idleStart);
            final long hits = oneSided.clientCounters().get(ClientCounter.GET_ONE_SIDED_HITS) - hitsBefore;
            final long rpcRequestsDuring = serverGetsByRpc(oneSided) - rpcRequestsBefore;

            final Histogram rpcGet = new Histogram(3);
            final long cpuBeforeRpc = cpuTicks(server.pid());
            final long rpcStart = System.nanoTime();
            runGets(rpc, keys, values, GETS, rpcGet);
            final long rpcNanos = System.nanoTime() - rpcStart;
            final long cpuRpc = cpuTicks(server.pid()) - cpuBeforeRpc;
            final double netOneSided = Math.max(0, cpuOneSided - idleTicksPerNano * oneSidedNanos);
            final double netRpc = Math.max(0, cpuRpc - idleTicksPerNano * rpcNanos);

            final Map<String, String> figures = new LinkedHashMap<>();
            figures.put("rdmakv.verbs.idle", idle);
            figures.put("rdmakv.get.oneSided.p50.us", Long.toString(oneSidedGet.getValueAtPercentile(50)));
            figures.put("rdmakv.get.oneSided.avg.us", String.format("%.1f", oneSidedGet.getMean()));
            figures.put("rdmakv.get.oneSided.p99.us", Long.toString(oneSidedGet.getValueAtPercentile(99)));
            figures.put("rdmakv.get.rpc.p50.us", Long.toString(rpcGet.getValueAtPercentile(50)));
            figures.put("rdmakv.get.rpc.avg.us", String.format("%.1f", rpcGet.getMean()));
            figures.put("rdmakv.put.p50.us", Long.toString(put.getValueAtPercentile(50)));
            figures.put("rdmakv.put.avg.us", String.format("%.1f", put.getMean()));
            figures.put("rdmakv.server.cpu.perOneSidedGet.us", perOpMicros(cpuOneSided, GETS));
            figures.put("rdmakv.server.cpu.perRpcGet.us", perOpMicros(cpuRpc, GETS));
            figures.put("rdmakv.server.cpu.ratio.oneSidedOverRpc",
                cpuRpc == 0 ? "n/a" : String.format("%.3f", (double)cpuOneSided / cpuRpc));
            figures.put("rdmakv.server.cpu.idle.percentOfOneCore", String.format("%.1f", idleTicksPerNano * 1e9 / TICKS_PER_SECOND * 100));
            figures.put("rdmakv.server.cpu.net.perOneSidedGet.us", perOpMicros(netOneSided, GETS));
            figures.put("rdmakv.server.cpu.net.perRpcGet.us", perOpMicros(netRpc, GETS));
            figures.put("rdmakv.server.cpu.net.ratio.oneSidedOverRpc",
                netRpc == 0 ? "n/a" : String.format("%.3f", netOneSided / netRpc));
            figures.put("rdmakv.value.bytes", Integer.toString(VALUE_BYTES));
            figures.put("rdmakv.gets.measured", Integer.toString(GETS));
            record(figures, file);

            assertEquals(GETS, hits, "every measured GET must be a one-sided hit");
            assertEquals(0, rpcRequestsDuring, "the server must handle no GET while the one-sided GETs run");
            assertEquals(0, oneSided.clientCounters().get(ClientCounter.GET_FALLBACKS), "no fallback to RPC");
        }
    }

    private static void runGets(
        final KvClient client, final byte[][] keys, final byte[][] values, final int count, final Histogram histogram)
    {
        for (int i = 0; i < count; i++)
        {
            final int k = i % keys.length;
            final long start = System.nanoTime();
            final byte[] value = client.get(keys[k]);
            histogram.recordValue((System.nanoTime() - start) / 1000);
            assertArrayEquals(values[k], value, "key " + k);
        }
    }

    private static long serverGetsByRpc(final KvClient client)
    {
        return client.stats().nodes().values().stream().mapToLong((node) -> NodeCounters.get(node, "gets.rpc")).sum();
    }

    /** utime + stime of a process, in clock ticks, from /proc/PID/stat (fields 14 and 15). */
    private static long cpuTicks(final long pid) throws IOException
    {
        final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    private static void sleepNanos(final long nanos)
    {
        try
        {
            Thread.sleep(nanos / 1_000_000, (int)(nanos % 1_000_000));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static String perOpMicros(final double ticks, final int ops)
    {
        return String.format("%.2f", ticks * 1e6 / TICKS_PER_SECOND / ops);
    }

    private static void record(final Map<String, String> figures, final String file) throws IOException
    {
        final StringBuilder text = new StringBuilder("# rdmakv on verbs (rxe0), same boot as perftest.properties\n");
        figures.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        System.out.print(text);
        final String results = System.getenv("RDMAKV_RESULTS");
        if (results != null)
        {
            Files.writeString(Path.of(results, file), text.toString());
        }
    }
}
