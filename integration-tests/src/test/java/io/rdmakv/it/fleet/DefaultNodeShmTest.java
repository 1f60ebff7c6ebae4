package io.rdmakv.it.fleet;

import io.rdmakv.cli.bench.ProcessCpuTime;
import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvStats;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.it.support.Trees;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 15's "selected automatically when client and node share a host", with nothing configured: a node process
 * with the default settings ({@code transport=auto}, {@code transport.serveShm=auto}) serves shm beside tcp and says
 * why, and a client left to {@code auto} on its host picks shm and says why; its GETs are one-sided reads of the
 * node's pool on the caller's thread, which the node does not see: its GET counters stay where they were and the
 * client sends nothing (node CPU over the GETs printed as a figure, never asserted).
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(180)
class DefaultNodeShmTest
{
    private static final int GETS = 2_000;
    private static final int PUTS = 500;
    private static final Duration LOG_WAIT = Duration.ofSeconds(30);

    @Test
    void shouldServeShmFromADefaultNodeAndHaveAnAutoClientOnItsHostPickIt() throws IOException
    {
        final Path dir = Files.createTempDirectory("rdmakv-default-shm-");
        try (ServerProcess server = ServerProcess.builder(dir.resolve("data")).name("default-shm")
            .setting("transport", "auto").setting("pool.size", "16MiB").start())
        {
            final String main = server.readyFields().get("transport");
            if ("verbs".equals(main))
            {
                assertEquals("verbs,tcp", server.readyFields().get("serves"), "auto never serves shm beside verbs");
                ServerLog.awaitLine(server, LOG_WAIT, "not serving shm beside verbs (transport.serveShm=auto");
                return;
            }
            assertEquals("tcp", main, server.readyFields().toString());
            assertEquals("tcp,shm", server.readyFields().get("serves"), "READY says what the node serves");
            ServerLog.awaitLine(server, LOG_WAIT, "serving shm beside tcp (transport.serveShm=auto: the main " +
                "transport is tcp");

            try (KvClient client = KvClient.builder().server(server.seed())
                .connectTimeout(TestTransport.CONNECT_TIMEOUT).requestTimeout(Duration.ofSeconds(10)).build())
            {
                assertEquals("shm", client.diagnostics().transport(), client.diagnostics().transportSelection());
                final String why = client.diagnostics().transportSelection();
                assertTrue(why.contains("same host as the node (boot id and network namespace match)"), why);
                assertTrue(why.contains("the node serves [shm, tcp]"), why);
                client.put(bytes("k"), bytes("from the pool"));
                assertArrayEquals(bytes("from the pool"), client.get(bytes("k")), "maps the node's pool");

                final KvStats before = client.stats();
                final long ticks = ProcessCpuTime.ticks(server.pid());
                final long start = System.nanoTime();
                for (int i = 0; i < GETS; i++)
                {
                    assertArrayEquals(bytes("from the pool"), client.get(bytes("k")));
                }
                final long nanos = System.nanoTime() - start;
                final long nodeTicks = ProcessCpuTime.ticks(server.pid()) - ticks;
                final KvStats after = client.stats();
                assertEquals(GETS, delta(before, after, ClientCounter.GET_ONE_SIDED_HITS), after.format());
                // Every GET, and perhaps the STATS request that read these counters (its caller may complete it too).
                final long onCaller = delta(before, after, ClientCounter.CALLER_COMPLETIONS);
                assertTrue(onCaller == GETS || onCaller == GETS + 1,
                    "every GET ran on its caller's thread: " + onCaller + "; " + after.format());
                assertTrue(delta(before, after, ClientCounter.RPCS) <= 1,
                    "no requests but the STATS: " + after.format());
                assertEquals(before.nodes().get(1).get("gets.rpc"), after.nodes().get(1).get("gets.rpc"),
                    "the node handled none of the GETs");
                System.out.printf(Locale.ROOT, "[DefaultNodeShmTest] %d one-sided GETs over shm in %.1f ms; node CPU " +
                    "meanwhile %d ticks (idle threads included)%n", GETS, nanos / 1e6, nodeTicks);
            }
            ServerLog.awaitLine(server, LOG_WAIT, "attached over shm: the best transport both sides have");
        }
        finally
        {
            Trees.delete(dir);
        }
    }

    /**
     * Issue 15's PUT over shm on a default node: the tcp event loop, the request thread, hosts the shm worker, so a
     * shm request is handled where it is read, with no progress thread of shm's own and no hand-off; PUTs over shm and
     * over tcp from two threads at once all land in the one pool index and read back one-sided.
     */
    @Test
    void shouldServeShmPutsOnTheRequestThreadBesideTcpPuts() throws Exception
    {
        final Path dir = Files.createTempDirectory("rdmakv-default-shm-puts-");
        try (ServerProcess server = ServerProcess.builder(dir.resolve("data")).name("default-shm-puts")
            .setting("transport", "tcp").setting("pool.size", "16MiB").start())
        {
            assertEquals("tcp,shm", server.readyFields().get("serves"));
            ServerLog.awaitLine(server, LOG_WAIT, "also serving shm on", "progressed on the request thread itself");
            assertTrue(threadNames(server.pid()).stream().noneMatch(n -> n.startsWith("rdmakv-server")),
                "no progress thread of shm's own: " + threadNames(server.pid()));
            try (KvClient shm = KvClient.builder().server(server.seed()).transport("shm")
                     .connectTimeout(TestTransport.CONNECT_TIMEOUT).requestTimeout(Duration.ofSeconds(10)).build();
                 KvClient tcp = KvClient.builder().server(server.seed()).transport("tcp")
                     .connectTimeout(TestTransport.CONNECT_TIMEOUT).requestTimeout(Duration.ofSeconds(10)).build())
            {
                assertEquals("shm", shm.diagnostics().transport());
                assertEquals("tcp", tcp.diagnostics().transport());
                final long putsBefore = Long.parseLong(shm.stats().nodes().get(1).get("puts"));
                final CompletableFuture<Void> overTcp = CompletableFuture.runAsync(() -> putAll(tcp, "tcp-"));
                putAll(shm, "shm-");
                overTcp.get(60, TimeUnit.SECONDS);
                assertEquals(putsBefore + 2L * PUTS, Long.parseLong(shm.stats().nodes().get(1).get("puts")),
                    "every PUT counted once");
                for (int i = 0; i < PUTS; i++)
                {
                    assertArrayEquals(bytes("v" + i), shm.get(bytes("shm-" + i)), "shm-" + i);
                    assertArrayEquals(bytes("v" + i), shm.get(bytes("tcp-" + i)), "tcp-" + i);
                }
            }
        }
        finally
        {
            Trees.delete(dir);
        }
    }

    private static void putAll(final KvClient client, final String prefix)
    {
        for (int i = 0; i < PUTS; i++)
        {
            client.put(bytes(prefix + i), bytes("v" + i));
        }
    }

    /** The names of a process's threads (/proc, at most 15 characters each). */
    private static List<String> threadNames(final long pid) throws IOException
    {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task")))
        {
            return tasks.map(t ->
            {
                try
                {
                    return Files.readString(t.resolve("comm")).trim();
                }
                catch (final IOException gone)
                {
                    return "";
                }
            }).toList();
        }
    }

    private static long delta(final KvStats before, final KvStats after, final ClientCounter counter)
    {
        return after.client(counter) - before.client(counter);
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
