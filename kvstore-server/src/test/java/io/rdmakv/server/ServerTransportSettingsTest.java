package io.rdmakv.server;

import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.transport.TransportConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The server's {@code transport.maxInflightPerEndpoint} reaches the transport it opens (its capabilities report the
 * credits it was opened with), and its default is the transport's own.
 */
class ServerTransportSettingsTest
{
    private static final int PIPELINED = 300;

    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void shouldOpenTheTransportWithTheTransportsOwnDefaultCredits()
    {
        assertEquals(TransportConfig.defaults().maxInflightPerEndpoint(), ServerConfig.DEFAULT_MAX_INFLIGHT_PER_ENDPOINT,
            "the server's default is the transport's");
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, Map.of())))
        {
            assertEquals(ServerConfig.DEFAULT_MAX_INFLIGHT_PER_ENDPOINT,
                server.transportCapabilities().maxInflightPerEndpoint());
        }
    }

    @Test
    @Timeout(60)
    void shouldOpenTheTransportWithTheConfiguredCreditsAndStillAnswerEveryPipelinedRequest() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir,
                Map.of("transport.maxInflightPerEndpoint", "1")));
             RawClient client = RawClient.attached(server))
        {
            assertEquals(1, server.transportCapabilities().maxInflightPerEndpoint());
            // One credit per endpoint: the answers to a pipelined burst wait in the server endpoint's pending queue
            // and leave one at a time, in order.
            final long[] puts = new long[PIPELINED];
            final long[] gets = new long[PIPELINED];
            for (int i = 0; i < PIPELINED; i++)
            {
                puts[i] = client.sendPut(b("k" + i), b("v" + i));
            }
            for (int i = 0; i < PIPELINED; i++)
            {
                gets[i] = client.sendKeyRequest(MessageType.GET_REQUEST, b("k" + i));
            }
            for (int i = 0; i < PIPELINED; i++)
            {
                assertEquals(Status.OK, client.await(puts[i]).status(), "PUT " + i);
            }
            for (int i = 0; i < PIPELINED; i++)
            {
                assertArrayEquals(b("v" + i), client.await(gets[i]).value(), "GET " + i);
            }
        }
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
