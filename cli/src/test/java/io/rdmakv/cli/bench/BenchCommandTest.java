package io.rdmakv.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.cli.ExitCodes;
import io.rdmakv.cli.Io;
import io.rdmakv.cli.RdmakvMain;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.cli.CliCommandsTest;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code rdmakv bench} end to end against a real node in this process, through the picocli entry point. */
class BenchCommandTest
{
    @TempDir
    static Path dir;

    private static KvServer server;
    private static String address;

    @BeforeAll
    static void startNode()
    {
        final Map<String, String> m = new HashMap<>(CliCommandsTest.testSettings(dir.resolve("data")));
        m.put("pool.size", "16MiB");
        m.put("limits.maxValueBytes", String.valueOf(1 << 20)); // the server default
        server = KvServer.start(ServerConfig.from(new Properties(), m));
        address = "127.0.0.1:" + server.controlAddress().getPort();
    }

    @AfterAll
    static void stopNode()
    {
        server.close();
    }

    @Test
    @Timeout(120)
    void shouldLoadRunAndReportEveryOperationWithJsonAndHgrm() throws Exception
    {
        final Path json = dir.resolve("a.json");
        final String hgrm = dir.resolve("hgrm/a").toString();
        final Run run = run("bench", "-s", address, "--workload", "A", "--keys", "300", "--connections", "2",
            "--threads", "2", "--inflight", "4", "--warmup", "200ms", "--duration", "1s", "--json", json.toString(),
            "--hgrm", hgrm, "--get-mode", "one-sided");
        assertEquals(ExitCodes.OK, run.code(), run.out() + run.err());
        final String out = run.out();
        assertTrue(out.contains("load        300 keys"), out);
        final long gets = count(out, "GET");
        final long puts = count(out, "PUT");
        assertTrue(gets > 0 && puts > 0, out);
        assertTrue(out.contains("GET hits    " + String.format("%,d of %,d (100.0%%)", gets, gets)),
            "every loaded key is found: " + out);
        assertTrue(out.matches("(?s).*GETs served hits [1-9][\\d,]*, .*"), "GETs were served one-sided: " + out);
        // The node runs in this JVM, so its pid is found from the port and its CPU time is this process's.
        assertTrue(out.contains("server CPU") && out.contains("pid " + ProcessHandle.current().pid()), out);
        assertTrue(run.err().contains("[run]"), "a progress line: " + run.err());

        final JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertEquals("A", report.get("workload").asText(), report.toString());
        assertEquals(gets, report.get("operations").get("GET").get("count").asLong(), report.toString());
        assertEquals(puts, report.get("operations").get("PUT").get("count").asLong(), report.toString());
        assertTrue(report.get("operations").get("GET").get("p99Us").isNumber(), report.toString());
        assertTrue(report.get("clientCounters").get("get.oneSided.hits").isIntegralNumber(), report.toString());
        for (final String op : new String[] {"GET", "PUT"})
        {
            final Path file = Path.of(hgrm + "-" + op + ".hgrm");
            final String h = Files.readString(file);
            assertTrue(h.contains("Value     Percentile TotalCount") && h.contains("#[Mean"), h);
        }
    }

    @Test
    @Timeout(120)
    void shouldReportGetsDoneInASingleReadThroughTheLocationCache()
    {
        final String[] common = {"bench", "-s", address, "--workload", "B", "--distribution", "zipfian",
            "--keys", "500", "--warmup", "200ms", "--ops", "2000", "--no-progress", "--get-mode", "one-sided"};
        final Run on = run(common);
        assertEquals(ExitCodes.OK, on.code(), on.out() + on.err());
        final Matcher line = Pattern.compile("GET cache   hits ([\\d,]+), misses ([\\d,]+), invalidations ([\\d,]+); " +
            "([\\d.]+)% of ([\\d,]+) GETs in a single read").matcher(on.out());
        assertTrue(line.find(), on.out());
        // The load phase's PUT answers told the client where every key lives, and its own updates keep that true.
        assertTrue(Double.parseDouble(line.group(4)) > 90, "most GETs were one read: " + on.out());
        assertTrue(on.out().contains("location cache " + KvClientBuilder.DEFAULT_LOCATION_CACHE_ENTRIES +
            " entries per node"), on.out());

        final String[] offArgs = Arrays.copyOf(common, common.length + 2);
        offArgs[common.length] = "--location-cache";
        offArgs[common.length + 1] = "0";
        final Run off = run(offArgs);
        assertEquals(ExitCodes.OK, off.code(), off.out() + off.err());
        assertTrue(off.out().contains("location cache off"), off.out());
        assertTrue(!off.out().contains("GET cache"), "no cache, no cache line: " + off.out());

        final Run bad = run("bench", "-s", address, "--location-cache", "-1");
        assertEquals(ExitCodes.USAGE, bad.code());
        assertTrue(bad.err().contains("--location-cache"), bad.err());
    }

    /**
     * The node's own GET count over the measured phase: an RPC run's GETs all reach it, a one-sided run's reach it
     * only as the client's RPCs. The node counters' window lies inside the client counters' and around the measured
     * phase; the GETs in flight when a window opens, at most connections x inflight (here 4), are the only slack.
     */
    @Test
    @Timeout(120)
    void shouldReportTheNodesRpcGetsOverTheMeasuredPhase() throws Exception
    {
        final int inFlight = 4;
        final JsonNode rpc = benchJson("rpc", inFlight);
        final long rpcGets = rpc.path("operations").path("GET").path("count").asLong();
        final long rpcAnswered = rpc.path("serverCounters").path("gets.rpc").asLong(-1);
        assertTrue(rpcGets > 0, rpc.toString());
        assertTrue(rpcAnswered >= rpcGets - inFlight, "every measured RPC GET reached the node: " + rpc);
        assertTrue(rpcAnswered <= rpc.path("clientCounters").path("rpc.requests").asLong() + inFlight, rpc.toString());

        final JsonNode oneSided = benchJson("one-sided", inFlight);
        final long gets = oneSided.path("operations").path("GET").path("count").asLong();
        final long requests = oneSided.path("clientCounters").path("rpc.requests").asLong();
        final long answered = oneSided.path("serverCounters").path("gets.rpc").asLong(-1);
        assertTrue(gets > 0 && oneSided.path("clientCounters").path("get.oneSided.hits").asLong() > 0,
            oneSided.toString());
        assertTrue(answered >= 0 && answered <= requests + inFlight,
            "the node answered no GET the client did not send as an RPC: " + oneSided);
    }

    private static JsonNode benchJson(final String getMode, final int inFlight) throws Exception
    {
        final Path json = dir.resolve("gets-" + getMode + ".json");
        final Run run = run("bench", "-s", address, "--workload", "C", "--keys", "200", "--inflight",
            String.valueOf(inFlight), "--warmup", "200ms", "--ops", "1000", "--no-progress", "--get-mode", getMode,
            "--json", json.toString());
        assertEquals(ExitCodes.OK, run.code(), run.out() + run.err());
        assertTrue(run.out().matches("(?s).*node GETs   [\\d,]+ answered by RPC \\(node counters, gets\\.rpc\\).*"),
            run.out());
        return new ObjectMapper().readTree(json.toFile());
    }

    @Test
    @Timeout(120)
    void shouldRunWorkloadDWithInsertsAndAFixedOperationCount()
    {
        final Run run = run("bench", "-s", address, "--workload", "D", "--keys", "200", "--ops", "400",
            "--warmup", "0s", "--no-progress", "--inflight", "2");
        assertEquals(ExitCodes.OK, run.code(), run.out() + run.err());
        final long total = count(run.out(), "GET") + count(run.out(), "INSERT");
        assertEquals(400, total, "exactly --ops operations are measured: " + run.out());
        assertTrue(run.err().isEmpty() || !run.err().contains("[run]"), "--no-progress: " + run.err());
    }

    @Test
    @Timeout(60)
    void shouldRefuseBadSettingsWithAUsageError()
    {
        final Run mix = run("bench", "-s", address, "--workload", "get=50,put=10");
        assertEquals(ExitCodes.USAGE, mix.code());
        assertTrue(mix.err().contains("summing to 100"), mix.err());
        final Run threads = run("bench", "-s", address, "--threads", "4", "--connections", "2");
        assertEquals(ExitCodes.USAGE, threads.code());
        assertTrue(threads.err().contains("more than --connections"), threads.err());
        final Run driver = run("bench", "--driver", "cassandra");
        assertEquals(ExitCodes.USAGE, driver.code());
        assertTrue(driver.err().contains("unknown driver"), driver.err());
    }

    @Test
    @Timeout(60)
    void shouldFailFastWhenNothingListens() throws Exception
    {
        final int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            port = s.getLocalPort();
        }
        for (final String driver : new String[] {"resp", "memcached"})
        {
            final Run run = run("bench", "--driver", driver, "-s", "127.0.0.1:" + port, "--duration", "1s",
                "--timeout-ms", "2000");
            assertEquals(ExitCodes.FAILED, run.code(), run.out() + run.err());
            assertTrue(run.err().contains("cannot connect to 127.0.0.1:" + port), run.err());
        }
    }

    /** The count column of an operation's row. */
    static long count(final String out, final String op)
    {
        final Matcher m = Pattern.compile("(?m)^" + op + " +([\\d,]+) ").matcher(out);
        return m.find() ? Long.parseLong(m.group(1).replace(",", "")) : 0;
    }

    static Run run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final Io io = new Io(new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        final int code = RdmakvMain.run(io, args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    record Run(int code, String out, String err)
    {
    }
}
