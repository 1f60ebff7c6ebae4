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
import java.util.Locale;

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

    private static long delta(final KvStats before, final KvStats after, final ClientCounter counter)
    {
        return after.client(counter) - before.client(counter);
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
