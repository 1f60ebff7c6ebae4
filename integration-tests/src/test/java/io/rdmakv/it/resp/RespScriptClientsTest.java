package io.rdmakv.it.resp;

import io.rdmakv.it.cluster.LocalCluster;
import io.rdmakv.it.support.ProcessJanitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Clients of other languages against three real nodes serving RESP: Debian's {@code python3-redis} (redis-py's
 * {@code RedisCluster}, which learns the slots by itself; {@code .ci/run} installs it) runs
 * {@code resp/redis_py_cluster.py}, and {@code redis-cli -c} follows {@code -MOVED} from a node that does not own the
 * key to the one that does. Each part is skipped, with the reason, where its program or module is absent.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RespScriptClientsTest
{
    private static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final Path REDIS_CLI = Path.of("/usr/bin/redis-cli");

    @TempDir
    Path dir;

    private static String run(final List<String> command) throws Exception
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), command + " did not exit");
        assertEquals(0, p.exitValue(), command + ": " + out);
        return out.trim();
    }

    private static boolean pythonHasRedis() throws Exception
    {
        if (!Files.isExecutable(PYTHON))
        {
            return false;
        }
        final Process p = new ProcessBuilder(PYTHON.toString(), "-c", "import redis.cluster")
            .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    @Test
    void shouldServeRedisPyClusterAndRedisCliInClusterMode() throws Exception
    {
        final boolean python = pythonHasRedis();
        final boolean cli = Files.isExecutable(REDIS_CLI);
        assumeTrue(python || cli, "neither python3-redis (/usr/bin/python3 -c 'import redis.cluster') nor " +
            REDIS_CLI + " is installed");
        try (LocalCluster cluster = LocalCluster.startServingResp(dir, 3, 1, 3_000))
        {
            final List<String> seeds = new ArrayList<>();
            for (int id = 1; id <= 3; id++)
            {
                seeds.add(cluster.resp(id));
            }
            if (python)
            {
                final Path script = dir.resolve("redis_py_cluster.py");
                try (InputStream in = RespScriptClientsTest.class.getResourceAsStream("/resp/redis_py_cluster.py"))
                {
                    assertNotNull(in, "resp/redis_py_cluster.py on the test class path");
                    Files.copy(in, script);
                }
                final List<String> command = new ArrayList<>(List.of(PYTHON.toString(), script.toString()));
                command.addAll(seeds);
                final String out = run(command);
                assertTrue(out.endsWith("keys=300 read=300 nodes=3 tagged=OK deleted=1 scanned=299"), out);
            }
            if (cli)
            {
                // Ask every node: two of the three do not own the key, answer -MOVED, and redis-cli -c follows it.
                for (int id = 1; id <= 3; id++)
                {
                    final String[] hostPort = seeds.get(id - 1).split(":");
                    final List<String> base = List.of(REDIS_CLI.toString(), "-c", "-h", hostPort[0], "-p", hostPort[1]);
                    final List<String> set = new ArrayList<>(base);
                    set.addAll(List.of("SET", "cli:key", "from-node-" + id));
                    assertEquals("OK", run(set), "SET through node " + id);
                    final List<String> get = new ArrayList<>(base);
                    get.addAll(List.of("GET", "cli:key"));
                    assertEquals("from-node-" + id, run(get), "GET through node " + id);
                }
                // redis-cli --scan asks one node: each answers the keys of its own hash slots; together, every key
                // (redis-py's 299 when it ran, else the one key written here).
                final Set<String> expected = new HashSet<>(Set.of("cli:key"));
                if (python)
                {
                    for (int i = 1; i < 300; i++)
                    {
                        expected.add("py:" + i);
                    }
                }
                final Set<String> scanned = new HashSet<>();
                for (int id = 1; id <= 3; id++)
                {
                    final String[] hostPort = seeds.get(id - 1).split(":");
                    final String out = run(List.of(REDIS_CLI.toString(), "-h", hostPort[0], "-p", hostPort[1],
                        "--scan", "--pattern", python ? "[cp]*:*" : "cli:*"));
                    for (final String line : out.split("\n"))
                    {
                        if (!line.isBlank())
                        {
                            assertTrue(scanned.add(line.strip()), "returned by two nodes: " + line);
                        }
                    }
                }
                assertEquals(expected, scanned);
            }
        }
    }
}
