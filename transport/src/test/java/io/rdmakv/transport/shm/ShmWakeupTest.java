package io.rdmakv.transport.shm;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.event.EventFdWakeup;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The cross-process wake-up: a consumer that armed (marked its inbound ring parked) and blocks is woken by the
 * producer's ring write through its eventfd, once; a consumer that did not arm is never signalled, so a busy
 * connection costs its producers no system call. Counted, never timed: a wait that is not woken runs to its bound.
 */
class ShmWakeupTest
{
    private Transport serverTransport;
    private Transport clientTransport;
    private Worker serverWorker;
    private AgentInvoker server;
    private AgentInvoker client;
    private Endpoint clientEndpoint;
    private final AtomicInteger received = new AtomicInteger();

    @BeforeEach
    void connect() throws Exception
    {
        final ShmTransportProvider provider = new ShmTransportProvider();
        assumeTrue(provider.isAvailable(), () -> "shm unavailable: " + provider.unavailabilityCause());
        serverTransport = provider.open(TransportConfig.defaults());
        clientTransport = provider.open(TransportConfig.defaults());
        serverWorker = serverTransport.createWorker("server");
        final Worker clientWorker = clientTransport.createWorker("client");
        server = new AgentInvoker(Throwable::printStackTrace, null, serverWorker);
        client = new AgentInvoker(Throwable::printStackTrace, null, clientWorker);
        server.start();
        client.start();
        final EndpointHandler counting = (ep, buffer, offset, length) -> received.incrementAndGet();
        final Listener listener = serverWorker.listen(new InetSocketAddress("127.0.0.1", 0), counting);
        final CompletableFuture<Endpoint> connect = clientWorker.connect(
            new InetSocketAddress("127.0.0.1", listener.localAddress().getPort()), counting);
        for (int i = 0; i < 1_000_000 && !connect.isDone(); i++)
        {
            server.invoke();
            client.invoke();
        }
        clientEndpoint = connect.get();
        for (int i = 0; i < 100; i++)
        {
            server.invoke(); // settle: the handshake's socket readiness is consumed
        }
    }

    @AfterEach
    void close()
    {
        if (client != null)
        {
            client.close();
            server.close();
            clientTransport.close();
            serverTransport.close();
        }
    }

    @Test
    @Timeout(30)
    void shouldWakeAParkedConsumerOnceThroughItsEventFd() throws Exception
    {
        final EventFdWakeup wakeup = (EventFdWakeup)serverWorker.wakeup();
        long signalsBefore;
        CompletableFuture<Boolean> waited;
        do
        {
            drain(wakeup);
            signalsBefore = wakeup.signalWakeups();
            wakeup.arm();
            assertEquals(0, server.invoke(), "the last poll after the arm finds nothing");
            final CompletableFuture<Boolean> wait = CompletableFuture.supplyAsync(
                () -> wakeup.await(TimeUnit.SECONDS.toNanos(20)));
            while (!wakeup.isBlocking() && !wait.isDone())
            {
                Thread.onSpinWait();
            }
            waited = wait;
        }
        while (waited.isDone()); // the wait ended (a socket was ready) before this thread saw it block: again
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        assertTrue(clientEndpoint.send(message, 0, 64, null) >= 0);
        assertTrue(clientEndpoint.send(message, 0, 64, null) >= 0);
        assertTrue(waited.get(25, TimeUnit.SECONDS), "the producer's write must end the wait");
        assertEquals(signalsBefore + 1, wakeup.signalWakeups(), "one eventfd wake-up for two messages");
        server.invoke();
        assertEquals(2, received.get());
    }

    @Test
    @Timeout(30)
    void shouldNotSignalAConsumerThatIsBusy() throws Exception
    {
        final EventFdWakeup wakeup = (EventFdWakeup)serverWorker.wakeup();
        drain(wakeup);
        final long signalsBefore = wakeup.signalWakeups();
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        for (int i = 0; i < 1000; i++)
        {
            while (clientEndpoint.send(message, 0, 64, null) < 0)
            {
                client.invoke();
            }
            client.invoke();
            server.invoke();
        }
        // Had any send written the eventfd, this short wait would end at once, woken; it must run to its bound.
        assertFalse(wakeup.await(TimeUnit.MILLISECONDS.toNanos(50)), "no producer may have signalled");
        assertEquals(signalsBefore, wakeup.signalWakeups());
        assertEquals(1000, received.get());
    }

    /** Empty the eventfd of local signals (a connect or listen task signals its worker). */
    private void drain(final EventFdWakeup wakeup)
    {
        while (wakeup.await(TimeUnit.MILLISECONDS.toNanos(1)))
        {
            server.invoke();
        }
    }
}
