package io.rdmakv.client;

import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.counters.ServerCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two real nodes splitting the hash slots; the client knows only the first. It must learn the map from the
 * handshake, route every key to its owner by itself (no redirect), and read each owner's pool one-sided.
 */
class MultiNodeRoutingTest
{
    private static final int KEYS = 200;

    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void shouldRouteEveryKeyToItsOwnerWithoutRedirects() throws Exception
    {
        final int port1 = freePort();
        final int port2 = freePort();
        final String map = "1@127.0.0.1:" + port1 + ":0-8191,2@127.0.0.1:" + port2 + ":8192-16383";
        try (KvServer node1 = start(1, port1, map); KvServer node2 = start(2, port2, map);
             KvClient client = KvClient.builder().server("127.0.0.1:" + port1).transport("tcp")
                 .getMode(GetMode.ONE_SIDED).build())
        {
            int ownedBy2 = 0;
            for (int i = 0; i < KEYS; i++)
            {
                client.put(bytes("key-" + i), bytes("value-" + i));
                if (KeyHash.hashSlot(bytes("key-" + i)) >= 8192)
                {
                    ownedBy2++;
                }
            }
            for (int i = 0; i < KEYS; i++)
            {
                assertArrayEquals(bytes("value-" + i), client.get(bytes("key-" + i)));
            }
            assertTrue(ownedBy2 > 0 && ownedBy2 < KEYS, "the keys spread over both nodes: " + ownedBy2);
            assertEquals(KEYS - ownedBy2, node1.counters().get(ServerCounter.PUTS));
            assertEquals(ownedBy2, node2.counters().get(ServerCounter.PUTS));
            assertEquals(0, node1.counters().get(ServerCounter.WRONG_NODE) +
                node2.counters().get(ServerCounter.WRONG_NODE), "the client routed by itself");
            assertEquals(0, client.diagnostics().counters().get(ClientCounter.REDIRECTS));
            assertEquals(KEYS, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS));

            final KvStats stats = client.stats();
            assertEquals(String.valueOf(KEYS - ownedBy2), stats.nodes().get(1).get("puts"));
            assertEquals(String.valueOf(ownedBy2), stats.nodes().get(2).get("puts"));
        }
    }

    private KvServer start(final int nodeId, final int controlPort, final String clusterMap)
    {
        final Map<String, String> m = new HashMap<>();
        m.put("node.id", String.valueOf(nodeId));
        m.put("data.dir", dir.resolve("node" + nodeId).toString());
        m.put("transport", "tcp");
        m.put("host", "127.0.0.1");
        m.put("control.port", String.valueOf(controlPort));
        m.put("data.port", "0");
        m.put("pool.size", "8MiB");
        m.put("pool.pin", "OFF");
        m.put("cluster.nodes", clusterMap);
        return KvServer.start(ServerConfig.from(new Properties(), m));
    }

    private static int freePort() throws Exception
    {
        try (ServerSocket s = new ServerSocket(0))
        {
            return s.getLocalPort();
        }
    }
}
