package io.rdmakv.client;

import io.rdmakv.protocol.wire.ClusterNode;
import io.rdmakv.protocol.wire.TransportAddress;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.KvServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node behind port mapping (Docker's {@code -p}, NAT): it binds 127.0.0.2, which the client is never told, and
 * advertises two forwarders on 127.0.0.1 as its control and data ports. The client reaches it only through them.
 */
@Timeout(300)
class AdvertisedAddressTest
{
    @TempDir
    Path dir;

    @Test
    void shouldReachANodeOnlyThroughTheAddressesItAdvertises() throws Exception
    {
        try (PortForwarder control = new PortForwarder(); PortForwarder data = new PortForwarder())
        {
            // The forwarder's threads add scheduling delays on an oversubscribed machine: give the HELLO time.
            try (KvServer server = InProcessNode.start(dir, Map.of("host", "127.0.0.2",
                "auth.handshakeTimeoutMs", "120000",
                "advertised.host", "127.0.0.1",
                "advertised.controlPort", Integer.toString(control.port()),
                "advertised.dataPort", Integer.toString(data.port()))))
            {
                control.forwardTo(server.controlAddress());
                data.forwardTo(server.dataAddress());

                final Welcome welcome = server.welcome();
                final TransportAddress served = welcome.transports().get(0);
                assertEquals("127.0.0.1", served.host());
                assertEquals(data.port(), served.port(), "the WELCOME names the mapped data port");
                for (final ClusterNode node : welcome.clusterMap())
                {
                    assertEquals("127.0.0.1", node.host());
                    assertEquals(control.port(), node.controlPort(), "the cluster map names the mapped control port");
                }

                final long lanes;
                try (KvClient client = KvClient.builder().server("127.0.0.1:" + control.port()).transport("tcp")
                    .connectTimeout(java.time.Duration.ofSeconds(120)).getMode(GetMode.ONE_SIDED).build())
                {
                    for (int i = 0; i < 20; i++)
                    {
                        client.put(bytes("key-" + i), bytes("value-" + i));
                    }
                    for (int i = 0; i < 20; i++)
                    {
                        assertArrayEquals(bytes("value-" + i), client.get(bytes("key-" + i)));
                    }
                    lanes = client.diagnostics().counter(ClientCounter.LANES_OPENED);
                }
                assertTrue(control.accepted() >= 1, "the handshake went through the control forwarder");
                assertEquals(1 + lanes, data.accepted(),
                    "every data connection (the shared one and each caller lane) went through the data forwarder");
                assertTrue(!server.controlAddress().getAddress().isAnyLocalAddress() &&
                    server.controlAddress().getAddress().getHostAddress().equals("127.0.0.2"),
                    "the node is bound where the client was never told to go: " + server.controlAddress());
            }
        }
    }

    @Test
    void shouldAdvertiseTheBoundPortsByDefault()
    {
        try (KvServer server = InProcessNode.start(dir, Map.of()))
        {
            final Welcome welcome = server.welcome();
            assertEquals(server.dataAddress().getPort(), welcome.transports().get(0).port());
            assertEquals(server.controlAddress().getPort(), welcome.clusterMap().get(0).controlPort());
            assertEquals(new InetSocketAddress("127.0.0.1", server.controlAddress().getPort()),
                new InetSocketAddress(welcome.clusterMap().get(0).host(), welcome.clusterMap().get(0).controlPort()));
        }
    }
}
