package io.rdmakv.bench;

import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.bench.perf.PerfClient;
import io.rdmakv.bench.perf.PerfServer;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.net.InetSocketAddress;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

/**
 * A {@link PerfServer} and a {@link PerfClient} of one transport in this process over loopback, each with its own
 * transport instance; the client's worker is progressed by the thread that calls the client (the benchmark thread).
 */
final class LoopbackPair implements AutoCloseable
{
    static final int REGION_BYTES = 1 << 20;

    private final Transport serverTransport;
    private final PerfServer server;
    private final Transport clientTransport;
    private final PerfClient client;

    LoopbackPair(final TransportProvider provider)
    {
        final TransportConfig config = TransportConfig.builder().build();
        serverTransport = provider.open(config);
        server = new PerfServer(serverTransport, new InetSocketAddress("127.0.0.1", 0), REGION_BYTES,
            new BackoffIdleStrategy(1_000, 100, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(50)));
        clientTransport = provider.open(config);
        client = PerfClient.connect(clientTransport, server.localAddress(), REGION_BYTES);
    }

    /** The provider named {@code name} on the class path, or {@code null}. */
    static TransportProvider provider(final String name)
    {
        for (final TransportProvider p : ServiceLoader.load(TransportProvider.class))
        {
            if (p.name().equals(name))
            {
                return p;
            }
        }
        return null;
    }

    PerfClient client()
    {
        return client;
    }

    PerfServer server()
    {
        return server;
    }

    @Override
    public void close()
    {
        client.close();
        clientTransport.close();
        server.close();
        serverTransport.close();
    }
}
