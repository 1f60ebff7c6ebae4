package io.rdmakv.bench.perf;

import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.tcp.TcpTransportProvider;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The perftest-style baseline over the real TCP transport on loopback: it measures real operations and says so. */
class TransportPerfTest
{
    @Test
    @Timeout(60)
    void shouldPrintAPerftestLatencyLinePerSizeForReads()
    {
        final Run run = run("read-lat", "--transport", "tcp", "--sizes", "64,4096", "-n", "300", "--warmup", "50");
        assertEquals(0, run.code(), run.err());
        assertTrue(run.out().contains("RDMA_Read Latency Test"), run.out());
        assertTrue(run.out().contains("#bytes #iterations    t_min[usec]"), run.out());
        for (final int size : new int[] {64, 4096})
        {
            final Matcher m = Pattern.compile("(?m)^ " + size + " +300 +([\\d.]+) +([\\d.]+) +([\\d.]+)")
                .matcher(run.out());
            assertTrue(m.find(), "a line for " + size + " bytes: " + run.out());
            final double min = Double.parseDouble(m.group(1));
            final double max = Double.parseDouble(m.group(2));
            final double typical = Double.parseDouble(m.group(3));
            assertTrue(min > 0 && min <= typical && typical <= max, m.group());
        }
    }

    @Test
    @Timeout(60)
    void shouldMeasureSendLatencyAndReadBandwidth()
    {
        final Run send = run("send-lat", "--transport", "tcp", "-s", "1000", "-n", "200", "--warmup", "20");
        assertEquals(0, send.code(), send.err());
        assertTrue(send.out().contains("half the round trip"), send.out());
        assertTrue(send.out().matches("(?s).*\n 1000 +200 +.*"), send.out());

        final Run bw = run("read-bw", "--transport", "tcp", "-s", "65536", "-n", "500", "--depth", "8");
        assertEquals(0, bw.code(), bw.err());
        final Matcher m = Pattern.compile("(?m)^ 65536 +500 +([\\d.]+) +([\\d.]+)").matcher(bw.out());
        assertTrue(m.find(), bw.out());
        assertTrue(Double.parseDouble(m.group(1)) > 0, "bandwidth above zero: " + m.group());
    }

    @Test
    @Timeout(60)
    void shouldReadTheServersRealBytesAndEchoMessages()
    {
        final TransportConfig config = TransportConfig.defaults();
        final TcpTransportProvider tcp = new TcpTransportProvider();
        try (Transport serverTransport = tcp.open(config);
            PerfServer server = new PerfServer(serverTransport, new InetSocketAddress("127.0.0.1", 0), 8192,
                new BackoffIdleStrategy());
            Transport clientTransport = tcp.open(config);
            PerfClient client = PerfClient.connect(clientTransport, server.localAddress(), 8192))
        {
            assertEquals(server.region().remoteKey().baseAddress(), client.remoteKey().baseAddress());
            assertEquals(TransportStatus.OK, client.read(100, 500));
            for (int i = 0; i < 500; i++)
            {
                assertEquals(PerfHello.pattern(100 + i), client.destination().getByte(i), "byte " + i);
            }
            assertEquals(TransportStatus.OK, client.readBatch(16, 256));
            assertEquals(TransportStatus.OK, client.pingPong(77));
            assertEquals(TransportStatus.OUT_OF_BOUNDS, client.read(8000, 500), "the region's bounds hold");
            assertEquals(0, server.echoFailures());
        }
    }

    @Test
    @Timeout(30)
    void shouldRefuseBadArgumentsWithUsageAndExitCodeTwo()
    {
        final Run none = run();
        assertEquals(2, none.code());
        assertTrue(none.err().contains("usage: TransportPerf"), none.err());
        assertEquals(2, run("write-lat").code());
        final Run size = run("read-lat", "-s", "zero");
        assertEquals(2, size.code());
        assertTrue(size.err().contains("-s wants a number"), size.err());
        assertEquals(2, run("read-lat", "--server", "--connect", "127.0.0.1:1").code());
        assertTrue(run("read-lat", "--connect", "nohostport").err().contains("HOST:PORT"));
    }

    @Test
    @Timeout(30)
    void shouldFailCleanlyWhenNoServerListens() throws Exception
    {
        final int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            port = s.getLocalPort();
        }
        final Run run = run("read-lat", "--transport", "tcp", "--connect", "127.0.0.1:" + port);
        assertEquals(1, run.code(), run.out());
        assertTrue(run.err().contains("could not connect"), run.err());
    }

    private static Run run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = TransportPerf.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private record Run(int code, String out, String err)
    {
    }
}
