package io.rdmakv.bench.perf;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.ref.Reference;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The passive side of the baseline: one region registered once for remote read (filled with
 * {@link PerfHello#pattern}), a {@link PerfHello} sent to every endpoint it accepts, and every message echoed back
 * unchanged (the other half of {@code send-lat}). Its worker runs on its own {@link AgentRunner}.
 */
public final class PerfServer implements AutoCloseable
{
    private final Transport transport;
    private final Worker worker;
    private final AgentRunner runner;
    /** The registered memory: kept reachable for as long as the registration lives. */
    private final ByteBuffer memory;
    private final MemoryRegion region;
    private final Listener listener;
    private final UnsafeBuffer hello = new UnsafeBuffer(ByteBuffer.allocateDirect(PerfHello.LENGTH));
    private final AtomicLong echoFailures = new AtomicLong();

    /**
     * Start serving on {@code bindAddress} (port 0 picks one).
     *
     * @param regionBytes size of the readable region: at least the largest read a client will make.
     */
    public PerfServer(final Transport transport, final InetSocketAddress bindAddress, final int regionBytes,
        final IdleStrategy idleStrategy)
    {
        this.transport = transport;
        final ByteBuffer memory = ByteBuffer.allocateDirect(regionBytes);
        final UnsafeBuffer view = new UnsafeBuffer(memory);
        for (int i = 0; i < regionBytes; i++)
        {
            view.putByte(i, PerfHello.pattern(i));
        }
        // Registered once, here: nothing is registered per operation.
        this.region = transport.memoryDomain().register(view.addressOffset(), regionBytes,
            EnumSet.of(MemoryAccess.REMOTE_READ, MemoryAccess.LOCAL_WRITE));
        PerfHello.encode(hello, region.remoteKey());
        this.worker = transport.createWorker("perf-server");
        this.runner = new AgentRunner(idleStrategy, Throwable::printStackTrace, null, worker);
        AgentRunner.startOnThread(runner);
        this.listener = worker.listen(bindAddress, new EchoHandler());
        this.memory = memory;
    }

    public InetSocketAddress localAddress()
    {
        return listener.localAddress();
    }

    public MemoryRegion region()
    {
        return region;
    }

    /** Echoes that the transport refused (back-pressure with a client sending faster than one in flight). */
    public long echoFailures()
    {
        return echoFailures.get();
    }

    @Override
    public void close()
    {
        listener.close();
        runner.close();
        region.close();
        Reference.reachabilityFence(memory);
    }

    private final class EchoHandler implements EndpointHandler
    {
        @Override
        public void onConnected(final Endpoint endpoint)
        {
            if (endpoint.send(hello, 0, PerfHello.LENGTH, null) < 0)
            {
                echoFailures.incrementAndGet();
            }
        }

        @Override
        public void onMessage(final Endpoint endpoint, final DirectBuffer buffer, final int offset, final int length)
        {
            final long id = endpoint.send(buffer, offset, length, null);
            if (id < 0 && id != TransportStatus.CLOSED.sentinel())
            {
                echoFailures.incrementAndGet();
            }
        }
    }
}
