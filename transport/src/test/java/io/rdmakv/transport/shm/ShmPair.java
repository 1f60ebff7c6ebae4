package io.rdmakv.transport.shm;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two shm transports in this process, a server worker with one registered 8 KiB region (its first long 0x5ec2e7) and
 * a client endpoint connected to it. Both workers are driven by the test thread (AgentInvoker), so every step is
 * deterministic. Open with {@link #open()} (after checking shm is available), close with {@link #close()}.
 */
final class ShmPair implements AutoCloseable
{
    static final String MEMORY_NAME = "rdmakv-test-secret";
    static final int MEMORY_BYTES = 8192;
    private static final EndpointHandler QUIET = (ep, buffer, offset, length) -> { };

    Transport serverTransport;
    Transport clientTransport;
    AgentInvoker server;
    AgentInvoker client;
    SharedMapping memory;
    MemoryRegion region;
    Endpoint endpoint;

    /** Open both sides and connect; {@code this}. */
    ShmPair open() throws Exception
    {
        final ShmTransportProvider provider = new ShmTransportProvider();
        serverTransport = provider.open(TransportConfig.defaults());
        clientTransport = provider.open(TransportConfig.defaults());
        final Worker serverWorker = serverTransport.createWorker("server");
        final Worker clientWorker = clientTransport.createWorker("client");
        server = new AgentInvoker(Throwable::printStackTrace, null, serverWorker);
        client = new AgentInvoker(Throwable::printStackTrace, null, clientWorker);
        server.start();
        client.start();
        memory = SharedMapping.create(MEMORY_NAME, MEMORY_BYTES);
        memory.buffer().putLong(0, 0x5ec2e7L);
        region = serverTransport.memoryDomain().register(memory.address(), MEMORY_BYTES,
            EnumSet.of(MemoryAccess.REMOTE_READ));
        final Listener listener = serverWorker.listen(new InetSocketAddress("127.0.0.1", 0), QUIET);
        endpoint = progress(clientWorker.connect(
            new InetSocketAddress("127.0.0.1", listener.localAddress().getPort()), QUIET));
        return this;
    }

    /** A posted read of {@code length} bytes at the key's base, progressed to its end: its status. */
    TransportStatus readStatus(final RemoteKey key, final int length, final UnsafeBuffer dst) throws Exception
    {
        final CompletableFuture<Void> read = endpoint.readAsync(key.baseAddress(), key, length, dst, 0);
        try
        {
            progress(read);
            return TransportStatus.OK;
        }
        catch (final ExecutionException e)
        {
            return ((TransportException)e.getCause()).status();
        }
    }

    /** Drive both workers on this thread until {@code future} is done. */
    <T> T progress(final CompletableFuture<T> future) throws Exception
    {
        for (int i = 0; i < 1_000_000 && !future.isDone(); i++)
        {
            server.invoke();
            client.invoke();
        }
        assertTrue(future.isDone(), "not done after a million progress cycles");
        return future.get();
    }

    @Override
    public void close()
    {
        if (client != null)
        {
            client.close();
            server.close();
            region.close();
            memory.close();
            clientTransport.close();
            serverTransport.close();
        }
    }
}
