package io.rdmakv.it.fleet;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.it.support.Trees;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
 * A node process serving tcp and shm at once ({@code transport=tcp}, {@code transport.serveShm=true}) and clients in
 * this JVM, on the same host: each gets the best transport both sides have, and both sides say why in one line.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(120)
class MixedTransportsTest
{
    private static final Duration LOG_WAIT = Duration.ofSeconds(30);
    private static Path dataDir;
    private static ServerProcess server;

    @BeforeAll
    static void startServer() throws IOException
    {
        dataDir = Files.createTempDirectory("rdmakv-mixed-");
        server = ServerProcess.builder(dataDir.resolve("data")).name("mixed").setting("transport", "tcp")
            .setting("transport.serveShm", "true").setting("pool.size", "16MiB").start();
    }

    @AfterAll
    static void stopServer() throws IOException
    {
        if (server != null)
        {
            server.kill();
        }
        Trees.delete(dataDir);
    }

    private static io.rdmakv.client.KvClientBuilder client(final String transport)
    {
        return KvClient.builder().server(server.seed()).transport(transport)
            .connectTimeout(TestTransport.CONNECT_TIMEOUT).requestTimeout(Duration.ofSeconds(10));
    }

    @Test
    void shouldServeAClientForcingTcpOverTcpOnTheSameHost()
    {
        try (KvClient client = client("tcp").build())
        {
            assertEquals("tcp", client.diagnostics().transport());
            assertTrue(client.diagnostics().transportSelection().contains("requested by configuration; the node " +
                "serves [tcp, shm]"), client.diagnostics().transportSelection());
            client.put(bytes("tcp-key"), bytes("over tcp"));
            assertArrayEquals(bytes("over tcp"), client.get(bytes("tcp-key")));
        }
        ServerLog.awaitLine(server, LOG_WAIT, "attached over tcp: the only transport the client offers",
            "client offers [tcp], node serves [tcp, shm]");
    }

    @Test
    void shouldPickShmOnTheSameHostAndSayWhyOnBothSides()
    {
        try (KvClient client = client("auto").build())
        {
            assertEquals("shm", client.diagnostics().transport());
            final String why = client.diagnostics().transportSelection();
            assertTrue(why.contains("same host as the node (boot id and network namespace match)"), why);
            client.put(bytes("shm-key"), bytes("over shm"));
            final long before = client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS);
            assertArrayEquals(bytes("over shm"), client.get(bytes("shm-key")));
            assertEquals(before + 1, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS),
                "the GET read the node's pool through the shared mapping");
        }
        final String line = ServerLog.awaitLine(server, LOG_WAIT, "attached over shm: the best transport both sides have");
        assertTrue(line.contains("same host: the client reached the node's abstract socket"), line);
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
