package io.rdmakv.transport.shm;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.Worker;
import org.agrona.concurrent.AgentInvoker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Idle connections held against an shm listener (issue 30): more of them than may wait for their HELLO at once, and
 * a client that connects after them still gets in, because the oldest waiting ones are shed for newcomers instead of
 * newcomers being refused. Both workers run on the test thread (AgentInvoker), so the order is fixed: every idle
 * connection is accepted before the client's.
 */
class ShmListenerFloodTest
{
    private static final EndpointHandler QUIET = (ep, buffer, offset, length) -> { };

    @Test
    @Timeout(120)
    void shouldLetAClientInWhileMoreIdleConnectionsThanTheBudgetAreHeld() throws Exception
    {
        final ShmTransportProvider provider = new ShmTransportProvider();
        assumeTrue(provider.isAvailable(), () -> "shm unavailable: " + provider.unavailabilityCause());
        final int idle = ShmWorker.MAX_PENDING_HANDSHAKES + 150;
        final List<UnixSeqPacket> held = new ArrayList<>();
        try (Transport serverTransport = provider.open(TransportConfig.defaults());
             Transport clientTransport = provider.open(TransportConfig.defaults()))
        {
            final Worker serverWorker = serverTransport.createWorker("server");
            final Worker clientWorker = clientTransport.createWorker("client");
            try (AgentInvoker server = new AgentInvoker(Throwable::printStackTrace, null, serverWorker);
                 AgentInvoker client = new AgentInvoker(Throwable::printStackTrace, null, clientWorker))
            {
                server.start();
                client.start();
                final Listener listener = serverWorker.listen(new InetSocketAddress("127.0.0.1", 0), QUIET);
                final int port = listener.localAddress().getPort();
                for (int i = 0; i < idle; i++)
                {
                    held.add(UnixSeqPacket.connect(ShmWorker.socketName(port))); // connected, never says HELLO
                    if (i % 64 == 63)
                    {
                        drive(server, () -> false, 2); // accept what the backlog holds (it has room for 512)
                    }
                }
                final CompletableFuture<Endpoint> connect =
                    clientWorker.connect(new InetSocketAddress("127.0.0.1", port), QUIET);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!connect.isDone() && System.nanoTime() < deadline)
                {
                    server.invoke();
                    client.invoke();
                }
                assertTrue(connect.isDone(), "the client's connect ended");
                assertTrue(connect.get().isConnected(), "the client got in");
                final long shed = serverWorker.counters().get("handshakesShed").longValue();
                assertTrue(shed >= idle - ShmWorker.MAX_PENDING_HANDSHAKES + 1,
                    "the oldest idle connections were shed for newer ones: " + shed);
            }
        }
        finally
        {
            held.forEach(UnixSeqPacket::close);
        }
    }

    /** Run {@code invoker} for at least {@code millis} ms of its cycles (the worker polls its listener once a ms). */
    private static void drive(final AgentInvoker invoker, final java.util.function.BooleanSupplier done,
        final long millis)
    {
        final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!done.getAsBoolean() && System.nanoTime() < until)
        {
            invoker.invoke();
        }
    }
}
