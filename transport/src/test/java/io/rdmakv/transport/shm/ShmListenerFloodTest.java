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
 * Idle connections held against an shm listener (issue 30): 10,000, far more than may wait for their HELLO at once,
 * and a client that connects after them still gets in, because the oldest waiting ones are shed for newcomers instead of
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
        final int idle = 10_000; // as many as issue 30 held against the TCP ports
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
                    if (i % 256 == 255)
                    {
                        // Let the worker accept all of them before the backlog (512) could fill: a count, not a time.
                        final long connected = i + 1;
                        drive(server, () -> accepted(serverWorker) >= connected);
                    }
                }
                drive(server, () -> accepted(serverWorker) >= idle);
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
                // Most are shed for newer ones; on a slow host some may time out waiting instead (the connect timeout).
                assertTrue(shed > 0, "the oldest idle connections were shed for newer ones: " + shed);
            }
        }
        finally
        {
            held.forEach(UnixSeqPacket::close);
        }
    }

    /** Run {@code invoker}'s cycles until {@code done} (the test's timeout bounds it). */
    private static void drive(final AgentInvoker invoker, final java.util.function.BooleanSupplier done)
    {
        while (!done.getAsBoolean())
        {
            invoker.invoke();
        }
    }

    private static long accepted(final Worker worker)
    {
        return worker.counters().get("accepted").longValue();
    }
}
