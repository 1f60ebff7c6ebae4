package io.rdmakv.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmakv.client.KvClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code rdmakv cluster local} as an operator runs a failure drill: three node processes, {@code kill -9} of one,
 * the command says so on stderr and names the node's {@code restart.sh}, which brings the node back into the
 * cluster (declared failed, then live again), and the data written before the crash reads back through it.
 */
@Timeout(600)
class ClusterLocalProcessTest
{
    private static final String MAIN = RdmakvMain.class.getName();
    private static final Pattern NODE_LINE = Pattern.compile("^node (\\d+) pid (\\d+) ");

    @TempDir
    Path tmp;

    @Test
    void shouldReportACrashedNodeAndBringItBackWithItsRestartScript() throws Exception
    {
        final int base = LocalClusters.freeBasePort(3);
        final String seed = "127.0.0.1:" + base;
        final Path dataDir = tmp.resolve("cluster");
        LocalClusters.keepingLogsOnFailure(dataDir, "ClusterLocalProcessTest", () ->
        {
            final String[] ready = new String[1];
            try (ChildJvm local = ChildJvm.startUntil(tmp, "READY cluster", ready, MAIN, "cluster", "local",
                "--nodes", "3", "--replicas", "1", "--base-port", Integer.toString(base),
                "--data-dir", dataDir.toString(), "-S", "pool.size=16MiB"))
            {
                assertTrue(ready[0].contains("seed " + seed), ready[0]);
                final long pid3 = pidOf(local.linesRead(), 3);
                final List<Long> pids = List.of(pidOf(local.linesRead(), 1), pidOf(local.linesRead(), 2), pid3);
                try
                {
                    drill(local, base, seed, dataDir, pid3);
                }
                catch (final Exception | AssertionError failure)
                {
                    LocalClusters.dumpThreads(dataDir, pids);
                    throw failure;
                }
            }
        });
    }

    /** Write, kill -9 node 3, see it reported and declared failed, restart it, see it live and the data read back. */
    private static void drill(final ChildJvm local, final int base, final String seed, final Path dataDir,
        final long pid3) throws Exception
    {
        final Path script = dataDir.resolve("node-3").resolve("restart.sh");
        assertTrue(Files.isExecutable(script), script + " is written for every node");
        try (KvClient client = LocalClusters.client(seed))
        {
            for (int i = 0; i < 20; i++)
            {
                final int n = i;
                LocalClusters.retryingBusy(() ->
                {
                    client.put("key-" + n, "value-" + n);
                    return null;
                });
            }
        }

        final ProcessHandle node3 = ProcessHandle.of(pid3).orElseThrow();
        node3.destroyForcibly();
        node3.onExit().get(60, TimeUnit.SECONDS);
        final String report = awaitErr(local, s -> s.contains("node 3 (pid " + pid3 + ") exited"));
        assertTrue(report.contains("exited with code 137 (signal 9)"), report);
        assertTrue(report.contains(script.toAbsolutePath().toString()), report);
        awaitNode(seed, 3, true);

        final Process restarted = new ProcessBuilder(script.toAbsolutePath().toString()).start();
        try
        {
            awaitNode(seed, 3, false);
            assertEquals(1, local.errText().lines().filter(l -> l.contains("exited")).count(),
                "only the crash is reported: " + local.errText());
            try (KvClient client = LocalClusters.client("127.0.0.1:" + (base + 20)))
            {
                for (int i = 0; i < 20; i++)
                {
                    final String key = "key-" + i;
                    assertEquals("value-" + i, new String(LocalClusters.retryingBusy(() -> client.get(key)),
                        StandardCharsets.UTF_8));
                }
            }
        }
        finally
        {
            restarted.destroy();
            if (!restarted.waitFor(30, TimeUnit.SECONDS))
            {
                restarted.destroyForcibly();
            }
        }
    }

    private static long pidOf(final List<String> lines, final int node)
    {
        for (final String line : lines)
        {
            final Matcher m = NODE_LINE.matcher(line);
            if (m.find() && Integer.parseInt(m.group(1)) == node)
            {
                return Long.parseLong(m.group(2));
            }
        }
        throw new AssertionError("no line for node " + node + " in " + lines);
    }

    /** Wait until the command's stderr passes {@code test}; its text. */
    private static String awaitErr(final ChildJvm local, final Predicate<String> test) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LocalClusters.WAIT_SECONDS);
        String err = local.errText();
        while (!test.test(err))
        {
            if (System.nanoTime() > deadline)
            {
                fail("stderr never showed what was expected: " + err);
            }
            Thread.sleep(100);
            err = local.errText();
        }
        return err;
    }

    /** Wait until the committed state, as node 1 answers it, says node {@code id} is (or is not) declared failed. */
    private static void awaitNode(final String seed, final int id, final boolean failed) throws Exception
    {
        LocalClusters.awaitStatus(seed, status ->
        {
            for (final JsonNode node : status.get("nodes"))
            {
                if (node.get("id").asInt() == id && node.get("failed").asBoolean() == failed)
                {
                    return true;
                }
            }
            return false;
        }, "node " + id + (failed ? " declared failed" : " live again"));
    }
}
