package io.rdmakv.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdmakv stats} as a process against server processes: what a node reports, and the exit codes for a wrong
 * credential (4), an unreachable server (3) and a node of the map that does not answer (3, the others printed); the
 * secret given by file and by environment, never on a command line.
 */
@Timeout(300)
class StatsProcessTest
{
    private static final String MAIN = RdmakvMain.class.getName();
    private static final Map<String, String> SECRET_ENV = Map.of("RDMAKV_SECRET", "s3cret");

    @TempDir
    Path tmp;

    @Test
    void shouldReportLikeInfoAndExitByCause() throws Exception
    {
        final int controlPort = freePort();
        final int deadPort = freePort();
        final String[] ready = new String[1];
        // The node takes its secret from the environment, never from its command line (which anyone sees in ps).
        try (ChildJvm server = ChildJvm.startUntil(tmp, SECRET_ENV, "READY", ready, MAIN, "server", "--host",
            "127.0.0.1", "--advertised-host", "127.0.0.1", "--port", Integer.toString(controlPort), "--data-port", "0",
            "--data-dir", tmp.resolve("data").toString(), "--pool-size", "16MiB", "--transport", "tcp"))
        {
            assertFalse(server.commandLine().contains("s3cret"), server.commandLine());
            final Path secretFile = tmp.resolve("secret");
            java.nio.file.Files.writeString(secretFile, "s3cret\n");
            java.nio.file.Files.setPosixFilePermissions(secretFile, PosixFilePermissions.fromString("rw-------"));
            final String seed = "127.0.0.1:" + controlPort;
            assertTrue(ready[0].contains("control=" + seed), ready[0]);
            // Over tcp, as the node's main transport: the GET is then the node's to serve (RPC), so its latency is
            // reported below; an auto client on this host would read the pool over shm without the node.
            // The secret by file and by the environment; a file only its owner reads draws no warning.
            final ChildJvm.Result put = cli("put", "-s", seed, "--transport", "tcp", "--secret-file",
                secretFile.toString(), "k", "v");
            assertEquals(ExitCodes.OK, put.code(), put.err());
            assertFalse(put.err().contains("readable by"), put.err());
            assertEquals(ExitCodes.OK, ChildJvm.run(tmp, SECRET_ENV, ChildJvm.FLAGS, MAIN, "get", "-s", seed,
                "--transport", "tcp", "k").code());

            final ChildJvm.Result json = ChildJvm.run(tmp, SECRET_ENV, ChildJvm.FLAGS, MAIN, "stats", "-s", seed,
                "--json");
            assertEquals(ExitCodes.OK, json.code(), json.err());
            final JsonNode nodes = new ObjectMapper().readTree(json.out()).get("nodes");
            assertTrue(nodes.isArray() && nodes.size() == 1, nodes.toString());
            final JsonNode node = nodes.get(0);
            assertTrue(node.get("id").isInt() && node.get("id").asInt() == 1, node.toString());
            assertEquals("tcp", node.get("transport").asText());
            assertTrue(node.get("transport.reason").asText().length() > 10, node.toString());
            assertTrue(node.get("version").isTextual());
            assertTrue(node.get("uptime.ms").asLong() > 0);
            assertEquals(16L << 20, node.get("memory.pool.bytes").asLong());
            assertTrue(node.get("memory.heap.used").asLong() > 0);
            assertTrue(node.get("memory.direct.used").asLong() > 0);
            assertTrue(node.get("memory.pinned.bytes").isNumber());
            assertTrue(node.get("pool.keys").isIntegralNumber() && node.get("puts").isIntegralNumber(),
                node.toString());
            assertEquals(1, node.get("pool.keys").asLong());
            assertEquals(1, node.get("puts").asLong());
            // Latencies: numbers in microseconds, the max over the same span as the quantiles (never 0 beside them).
            for (final String op : new String[] {"get", "put"})
            {
                final JsonNode latency = node.get("latency").get(op);
                assertEquals(1, latency.get("count").asLong(), latency.toString());
                for (final String field : new String[] {"meanUs", "p50Us", "p99Us", "maxUs"})
                {
                    assertTrue(latency.get(field).isNumber() && latency.get(field).asDouble() > 0, latency.toString());
                }
                assertTrue(latency.get("maxUs").asDouble() <= latency.get("p50Us").asDouble(),
                    "one request: the max lies in the bucket the p50 bound closes: " + latency);
            }
            assertEquals(0, node.get("latency").get("delete").get("count").asLong(), node.toString());

            // A file group and others may read still works, with a warning that names the fix.
            java.nio.file.Files.setPosixFilePermissions(secretFile, PosixFilePermissions.fromString("rw-r--r--"));
            final ChildJvm.Result open = cli("stats", "-s", seed, "--secret-file", secretFile.toString());
            assertEquals(ExitCodes.OK, open.code(), open.err());
            assertTrue(open.err().contains("readable by group and others") && open.err().contains("chmod 600"),
                open.err());

            final ChildJvm.Result wrong = ChildJvm.run(tmp, Map.of("RDMAKV_SECRET", "wrong"), ChildJvm.FLAGS, MAIN,
                "stats", "-s", seed);
            assertEquals(ExitCodes.UNAUTHENTICATED, wrong.code(), wrong.err());
            assertTrue(wrong.err().toLowerCase().contains("credential"), wrong.err());

            final ChildJvm.Result unreachable = cli("stats", "-s", "127.0.0.1:" + deadPort, "--timeout-ms", "3000");
            assertEquals(ExitCodes.FAILED, unreachable.code(), unreachable.err());
        }

        // A map naming a second node that is not running: node 1 answers, node 2 does not.
        try (ChildJvm server = ChildJvm.startUntil(tmp, "READY", ready, MAIN, "server", "--host", "127.0.0.1",
            "--advertised-host", "127.0.0.1", "--port", Integer.toString(controlPort), "--data-port", "0",
            "--data-dir", tmp.resolve("data2").toString(), "--pool-size", "16MiB", "--transport", "tcp",
            "--cluster-nodes", "1@127.0.0.1:" + controlPort + ":0-8191,2@127.0.0.1:" + deadPort + ":8192-16383"))
        {
            final ChildJvm.Result partial = cli("stats", "-s", "127.0.0.1:" + controlPort, "--timeout-ms", "3000");
            assertEquals(ExitCodes.FAILED, partial.code(), partial.out() + partial.err());
            assertTrue(partial.out().contains("node.1.transport=tcp"), partial.out());
            assertTrue(partial.out().contains("node.2.error="), partial.out());
            assertTrue(partial.err().contains("node 2 did not answer"), partial.err());
        }
    }

    @Test
    void shouldListTheExitCodesInHelp() throws Exception
    {
        final ChildJvm.Result help = cli("--help");
        assertEquals(0, help.code());
        final Matcher m = Pattern.compile("(?m)^\\s+4\\s+the credential was refused").matcher(help.out());
        assertTrue(m.find(), help.out());
        assertTrue(help.out().contains("memlock vs pinning."), "doctor's line is whole: " + help.out());
    }

    private ChildJvm.Result cli(final String... args) throws Exception
    {
        return ChildJvm.run(tmp, ChildJvm.FLAGS, MAIN, args);
    }

    private static int freePort() throws Exception
    {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
    }
}
