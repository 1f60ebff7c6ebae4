package io.rdmakv.it.e2e;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvStats;
import io.rdmakv.it.support.DataPortSession;
import io.rdmakv.it.support.DataPortWire;
import io.rdmakv.it.support.FreePorts;
import io.rdmakv.it.support.NodeCounters;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.RawConnection;
import io.rdmakv.it.support.SelfCheckingValue;
import io.rdmakv.it.support.SelfCheckingValue.Verdict;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.wire.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three server processes with a cluster map splitting the 16384 hash slots in three; one client routes every key to
 * its node by itself. Each node then holds exactly its slots' keys: its PUT counter equals the number of keys whose
 * slot it owns, and asked directly on its data port it serves its own keys and refuses the others'.
 */
@ExtendWith(ProcessJanitor.class)
class MultiNodeTest
{
    private static final int NODES = 3;
    private static final int[][] RANGES = {{0, 5460}, {5461, 10922}, {10923, 16383}};
    private static final int KEYS = 300;

    @TempDir
    Path tmp;

    @Test
    @Timeout(420)
    void shouldRouteEveryKeyToTheNodeOwningItsHashSlot() throws Exception
    {
        final int[] ports = FreePorts.take(NODES);
        final StringBuilder map = new StringBuilder();
        for (int n = 0; n < NODES; n++)
        {
            map.append(n == 0 ? "" : ",").append(n + 1).append("@127.0.0.1:").append(ports[n]).append(':')
                .append(RANGES[n][0]).append('-').append(RANGES[n][1]);
        }
        // The three JVMs start side by side: in the SoftRoCE guest (TCG) each takes tens of seconds to READY.
        final long started = System.nanoTime();
        final List<ServerProcess> nodes = new ArrayList<>();
        for (int n = 0; n < NODES; n++)
        {
            nodes.add(ServerProcess.builder(tmp.resolve("node" + (n + 1))).name("node" + (n + 1))
                .setting("node.id", Integer.toString(n + 1))
                .controlPort(ports[n])
                .setting("cluster.nodes", map.toString())
                .setting("pool.size", "16MiB")
                .setting("transport", TestTransport.name())
                .build());
        }
        final List<CompletableFuture<ServerProcess>> starting = new ArrayList<>();
        for (final ServerProcess node : nodes)
        {
            starting.add(CompletableFuture.supplyAsync(node::start));
        }
        for (final CompletableFuture<ServerProcess> start : starting)
        {
            start.join();
        }
        phase("three nodes READY", started);

        final int[] expected = new int[NODES];
        try (KvClient client = client(nodes.get(0)))
        {
            for (int k = 0; k < KEYS; k++)
            {
                client.put(key(k), SelfCheckingValue.encode(key(k), k, 48 + k));
                expected[owner(key(k))]++;
            }
            phase(KEYS + " PUTs", started);
            for (int n = 0; n < NODES; n++)
            {
                assertTrue(expected[n] > 0, "300 keys must reach every node: " + java.util.Arrays.toString(expected));
            }

            final KvStats stats = client.stats();
            assertEquals(NODES, stats.nodes().size(), "the client reaches all nodes: " + stats.nodes().keySet());
            for (int n = 0; n < NODES; n++)
            {
                final Map<String, String> counters = stats.nodes().get(n + 1);
                assertEquals(expected[n], NodeCounters.get(counters, "puts"), "node " + (n + 1) + " " + counters);
            }
        }

        // A client seeded with another node reads everything back, routed the same way.
        try (KvClient other = client(nodes.get(2)))
        {
            for (int k = 0; k < KEYS; k++)
            {
                assertEquals(Verdict.OK, SelfCheckingValue.check(key(k), other.get(key(k))), "key " + k);
            }
        }

        // Each node holds exactly its own keys in its pool (any transport).
        try (KvClient client = client(nodes.get(1)))
        {
            final KvStats stats = client.stats();
            for (int n = 0; n < NODES; n++)
            {
                assertEquals(expected[n], NodeCounters.get(stats.nodes().get(n + 1), "pool.keys"), "node " + (n + 1));
            }
        }
        if (!"tcp".equals(TestTransport.name()))
        {
            return; // the last check speaks the tcp transport's framing to each data port
        }

        // Each node's own data port: its keys are there, the others' are not served by it.
        for (int n = 0; n < NODES; n++)
        {
            try (RawConnection c = DataPortSession.openAttached(nodes.get(n), Duration.ofSeconds(10)))
            {
                for (int k = 0; k < KEYS; k++)
                {
                    c.send(DataPortWire.request(DataPortWire.TYPE_GET, k, DataPortWire.getBody(key(k))));
                    final DataPortWire.Response r = DataPortWire.readResponse(c, Duration.ofSeconds(10));
                    if (owner(key(k)) == n)
                    {
                        assertEquals(Status.OK.code(), r.status(), "node " + (n + 1) + " must hold key " + k);
                        assertEquals(Verdict.OK, SelfCheckingValue.check(key(k), r.value()));
                    }
                    else
                    {
                        assertNotEquals(Status.OK.code(), r.status(), "node " + (n + 1) + " must not hold key " + k);
                    }
                }
            }
        }
    }

    /** Where the test's time went, in its output (in the guest under TCG the whole test takes minutes). */
    private static void phase(final String what, final long startedNanos)
    {
        System.out.printf("MultiNodeTest: %s after %,d ms%n", what, (System.nanoTime() - startedNanos) / 1_000_000);
    }

    /** Three server JVMs may still be warming up: the tests' connect timeout, and as long for each request. */
    private static KvClient client(final ServerProcess seed)
    {
        return KvClient.builder().server(seed.seed()).transport(TestTransport.name())
            .connectTimeout(TestTransport.CONNECT_TIMEOUT).requestTimeout(Duration.ofSeconds(30)).build();
    }

    private static int owner(final byte[] key)
    {
        final int hashSlot = KeyHash.hashSlot(key);
        for (int n = 0; n < NODES; n++)
        {
            if (hashSlot >= RANGES[n][0] && hashSlot <= RANGES[n][1])
            {
                return n;
            }
        }
        throw new AssertionError("slot " + hashSlot + " outside the map");
    }

    private static byte[] key(final int k)
    {
        return ("multi/" + k).getBytes(StandardCharsets.UTF_8);
    }
}
