package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code auto} picks shm for every node on this host that serves it: a node started with {@code transport=shm} (shm
 * its main transport, tcp beside it) as well as a default tcp node serving shm beside tcp. Before, a
 * {@code transport=shm} node's WELCOME carried its shm address without the host identity, so its clients were told
 * "the node is not on this host" and took tcp (issue 30 item 8).
 */
@Timeout(120)
class ShmAutoSelectionTest
{
    @TempDir
    Path dir;

    @Test
    void shouldPickShmForANodeWhoseMainTransportIsShm()
    {
        assertAutoPicksShm(Map.of("transport", "shm"));
    }

    @Test
    void shouldPickShmForATcpNodeServingShmBesideIt()
    {
        assertAutoPicksShm(Map.of("transport", "tcp", "transport.serveShm", "true"));
    }

    private void assertAutoPicksShm(final Map<String, String> settings)
    {
        assumeTrue(new io.rdmakv.transport.shm.ShmTransportProvider().isAvailable(), "shm unavailable here");
        try (KvServer server = InProcessNode.start(dir, settings);
             KvClient client = KvClient.builder().server("127.0.0.1:" + server.controlAddress().getPort())
                 .transport("auto").build())
        {
            final byte[] value = "on this host".getBytes(StandardCharsets.UTF_8);
            client.put("k".getBytes(StandardCharsets.UTF_8), value);
            assertArrayEquals(value, client.get("k".getBytes(StandardCharsets.UTF_8)));
            final String why = client.diagnostics().transportSelection();
            assertEquals("shm", client.diagnostics().transport(), why);
            assertTrue(why.contains("same host as the node"), why);
            assertFalse(why.contains("not on this host"), why);
        }
    }
}
