package io.rdmakv.cli.bench;

import io.rdmakv.cli.ExitCodes;
import io.rdmakv.cli.bench.BenchCommandTest.Run;
import io.rdmakv.cli.CliCommandsTest;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static io.rdmakv.cli.bench.BenchCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Absurd bench options are refused up front with the option and the bound in the message: sizes against the protocol,
 * the node's limits learned at connect and the JVM heap; counts, times and concurrency against fixed bounds. Every
 * refusal comes before the generator allocates or loads anything (the timeouts would catch a run that started).
 */
@Timeout(60)
class BenchLimitsTest
{
    private static final int NODE_MAX_VALUE = 4096;

    @TempDir
    static Path dir;

    private static KvServer server;
    private static String address;

    @BeforeAll
    static void startNode()
    {
        final Map<String, String> m = new HashMap<>(CliCommandsTest.testSettings(dir.resolve("data")));
        m.put("pool.size", "8MiB");
        m.put("limits.maxValueBytes", String.valueOf(NODE_MAX_VALUE));
        server = KvServer.start(ServerConfig.from(new Properties(), m));
        address = "127.0.0.1:" + server.controlAddress().getPort();
    }

    @AfterAll
    static void stopNode()
    {
        server.close();
    }

    @Test
    void shouldRefuseAValueLargerThanTheProtocolCarriesBeforeConnecting() throws Exception
    {
        // Nothing listens there: the refusal must not need a node.
        final Run run = run("bench", "-s", "127.0.0.1:" + unusedPort(), "--value-size", "2000000000");
        assertEquals(ExitCodes.USAGE, run.code(), run.err());
        assertTrue(run.err().contains("--value-size 2000000000 is more than the protocol's largest value"), run.err());
    }

    @Test
    void shouldRefuseAValueLargerThanTheNodeAcceptsLearnedAtConnect()
    {
        final Run run = run("bench", "-s", address, "--value-size", String.valueOf(NODE_MAX_VALUE + 1), "--keys", "10");
        assertEquals(ExitCodes.USAGE, run.code(), run.err());
        assertTrue(run.err().contains("the largest value the node accepts (limits.maxValueBytes), " + NODE_MAX_VALUE),
            run.err());
        final Run fits = run("bench", "-s", address, "--value-size", String.valueOf(NODE_MAX_VALUE), "--keys", "10",
            "--warmup", "0s", "--ops", "20", "--no-progress");
        assertEquals(ExitCodes.OK, fits.code(), fits.out() + fits.err());
    }

    @Test
    void shouldRefuseAKeyCountNoLoadPhaseCouldWrite()
    {
        final Run run = run("bench", "-s", address, "--keys", "9999999999999");
        assertEquals(ExitCodes.USAGE, run.code(), run.err());
        assertTrue(run.err().contains("--keys must be between 1 and " + BenchLimits.MAX_KEYS), run.err());
        final Run zipf = run("bench", "-s", address, "--keys", "500000000", "--distribution", "zipfian");
        assertEquals(ExitCodes.USAGE, zipf.code(), zipf.err());
        assertTrue(zipf.err().contains("and " + BenchLimits.MAX_ZIPFIAN_KEYS), zipf.err());
    }

    @Test
    void shouldRefuseBuffersLargerThanTheHeap()
    {
        // Redis takes 400 MB values; 16 of them for the generator do not fit this test JVM's heap.
        final Run run = run("bench", "--driver", "resp", "-s", address, "--value-size", "400000000");
        assertEquals(ExitCodes.USAGE, run.code(), run.err());
        assertTrue(run.err().contains("MiB of heap for the generator's buffers") && run.err().contains("-Xmx"),
            run.err());

        final BenchSettings settings = new BenchSettings(Workload.parse("A"), false, 0.99, 1000, 16, 1 << 20, 2, 1, 8,
            Duration.ofSeconds(1), 0, Duration.ZERO, true, false);
        // 16 value variants + 2 connections x 8 in flight x 2 copies of (value + key + 64): 48 MiB and 2,560 B.
        final long needed = BenchLimits.heapNeeded(settings);
        assertEquals((48L << 20) + 2 * 8 * 2 * (16 + 64), needed);
        BenchLimits.checkHeap(settings, 2 * needed);
        assertThrows(BenchException.class, () -> BenchLimits.checkHeap(settings, 2 * needed - 2));
    }

    @Test
    void shouldRefuseEveryOtherNumberOutsideItsBounds()
    {
        refused("--connections must be between 1 and", "--connections", "100000", "--threads", "1");
        refused("--connections must be between 1 and", "--connections", "0");
        refused("--threads must be between 1 and", "--threads", "2000", "--connections", "4000");
        refused("--inflight must be between 1 and", "--inflight", "100000");
        refused("--connections x --inflight must be between", "--connections", "1000", "--inflight", "10000");
        refused("--ops must be between 0 and", "--ops", "-1");
        refused("--duration (seconds) must be between", "--duration", "200h");
        refused("--warmup (seconds) must be between", "--warmup", "2h");
        refused("--timeout-ms must be between 1 and", "--timeout-ms", "0");
        refused("--clients must be between 1 and", "--clients", "5000");
        refused("--key-size must be between 1 and", "--key-size", "0");
        refused("--server-pid must be between 0 and", "--server-pid", "-5");
        refused("--key-size 2000 is more than the protocol's largest key", "--key-size", "2000");
    }

    @Test
    void shouldRefuseAClientTimeoutOutsideItsBounds()
    {
        final Run get = run("get", "-s", address, "--timeout-ms", "-1", "k");
        assertEquals(ExitCodes.USAGE, get.code(), get.err());
        assertTrue(get.err().contains("--timeout-ms must be between 1 and 3600000"), get.err());
    }

    private static void refused(final String message, final String... options)
    {
        final String[] args = new String[options.length + 3];
        args[0] = "bench";
        args[1] = "-s";
        args[2] = address;
        System.arraycopy(options, 0, args, 3, options.length);
        final Run run = run(args);
        assertEquals(ExitCodes.USAGE, run.code(), String.join(" ", options) + ": " + run.err());
        assertTrue(run.err().contains(message), String.join(" ", options) + ": " + run.err());
    }

    private static int unusedPort() throws Exception
    {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
    }
}
