package io.rdmakv.it.e2e;

import io.netty.channel.uring.IoUring;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.TestTransport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The end-to-end suite against a node whose tcp transport runs on Netty's io_uring ({@code tcp.ioUring=true}), with a
 * tcp client (one-sided GETs emulated by the node's transport); skipped where the kernel offers no io_uring.
 */
class EndToEndIoUringNodeTest extends AbstractEndToEndTest
{
    @BeforeAll
    static void startServer() throws IOException
    {
        assumeTrue(IoUring.isAvailable(), () -> "io_uring unavailable: " + IoUring.unavailabilityCause());
        startServer(Map.of("tcp.ioUring", "true"));
    }

    @Override
    protected GetMode getMode()
    {
        return GetMode.ONE_SIDED;
    }

    @Override
    KvClient newClient()
    {
        return KvClient.builder()
            .server(server().seed())
            .transport("tcp")
            .connectTimeout(TestTransport.CONNECT_TIMEOUT)
            .getMode(getMode())
            .requestTimeout(Duration.ofSeconds(10))
            .build();
    }

    @Test
    @Timeout(60)
    void shouldRunTheNodesTcpOnIoUring() throws IOException
    {
        final String log = Files.readString(server().stdoutLog()) + Files.readString(server().stderrLog());
        assertTrue(log.contains("tcp transport opened: io_uring I/O"), log);
    }
}
