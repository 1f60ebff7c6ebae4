package io.rdmakv.it.fleet;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.it.softroce.SoftRoceGuest;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.it.support.Trees;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * In the SoftRoCE guest: a verbs node serves a TCP-only client and a verbs client at the same time (TCP is served
 * beside verbs), each over the best transport both sides have, and an {@code auto} client on this RDMA host is served
 * by a TCP-only node instead of failing.
 */
@Tag(SoftRoceGuest.TAG)
@Tag("mixed-fleet")
@ExtendWith(ProcessJanitor.class)
@Timeout(1500)
class MixedFleetVerbsTest
{
    private static final int KEYS = 100;
    private static final Duration LOG_WAIT = Duration.ofSeconds(60);
    /** A node's start in the emulated guest on a loaded host took longer than the default 3 minutes. */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(10);
    private Path dataDir;

    @BeforeEach
    void createDir() throws IOException
    {
        dataDir = Files.createTempDirectory("rdmakv-mixed-verbs-");
    }

    @AfterEach
    void deleteDir() throws IOException
    {
        Trees.delete(dataDir);
    }

    @Test
    void shouldServeATcpOnlyClientAndAVerbsClientAtOnce()
    {
        try (ServerProcess server = ServerProcess.builder(dataDir.resolve("data")).name("verbs-and-tcp")
            .setting("transport", "verbs").readyTimeout(START_TIMEOUT).start();
             KvClient verbs = client(server, "auto").build();
             KvClient tcp = client(server, "tcp").build())
        {
            assertEquals("verbs", verbs.diagnostics().transport(), verbs.diagnostics().transportSelection());
            assertTrue(verbs.diagnostics().transportSelection().contains("with native one-sided read"),
                verbs.diagnostics().transportSelection());
            assertEquals(GetMode.ONE_SIDED, verbs.diagnostics().getMode());
            assertEquals("tcp", tcp.diagnostics().transport(), tcp.diagnostics().transportSelection());

            // Both connected at once: what one writes, the other reads.
            for (int i = 0; i < KEYS; i++)
            {
                tcp.put(bytes("from-tcp-" + i), bytes("value-" + i));
                verbs.put(bytes("from-verbs-" + i), bytes("value-" + i));
            }
            final long hitsBefore = verbs.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS);
            for (int i = 0; i < KEYS; i++)
            {
                assertArrayEquals(bytes("value-" + i), verbs.get(bytes("from-tcp-" + i)));
                assertArrayEquals(bytes("value-" + i), tcp.get(bytes("from-verbs-" + i)));
            }
            assertEquals(hitsBefore + KEYS, verbs.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS),
                "every GET of the verbs client was an RDMA Read of the pool the TCP client's PUTs wrote");

            ServerLog.awaitLine(server, LOG_WAIT, "attached over verbs: the best transport both sides have",
                "node serves [verbs, tcp]");
            ServerLog.awaitLine(server, LOG_WAIT, "attached over tcp: the only transport the client offers",
                "client offers [tcp], node serves [tcp, verbs]");
        }
    }

    @Test
    void shouldServeAnAutoClientOnAnRdmaHostFromATcpOnlyNode()
    {
        // tcp alone: a tcp node serves shm beside it by default (transport.serveShm=auto), which a client on its host
        // prefers.
        try (ServerProcess server = ServerProcess.builder(dataDir.resolve("data")).name("tcp-only")
            .setting("transport", "tcp").setting("transport.serveShm", "false").readyTimeout(START_TIMEOUT).start();
             KvClient client = client(server, "auto").build())
        {
            assertEquals("tcp", client.diagnostics().transport(), client.diagnostics().transportSelection());
            assertTrue(client.diagnostics().transportSelection().contains("verbs: the node does not serve it"),
                client.diagnostics().transportSelection());
            client.put(bytes("k"), bytes("v"));
            assertArrayEquals(bytes("v"), client.get(bytes("k")));
        }
    }

    private static KvClientBuilder client(final ServerProcess server, final String transport)
    {
        return KvClient.builder().server(server.seed()).transport(transport)
            .connectTimeout(TestTransport.CONNECT_TIMEOUT).requestTimeout(Duration.ofSeconds(30));
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
