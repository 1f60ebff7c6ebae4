package io.rdmakv.transport.conformance;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerProgress;
import io.rdmakv.transport.progress.Progress;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Shared harness of the conformance suite: opens transports, drives each worker on its own {@link AgentRunner}
 * (polled) or through {@link io.rdmakv.transport.progress.Progress#start} (the worker's own progress model: event-driven on tcp) when
 * {@link #progressByModel()} says so, with a {@link ProgressGate} beside it that a test can hold, connects a client to
 * a server over loopback, and registers a region filled with a known pattern. Everything opened is closed after each
 * test, progress first.
 */
public abstract class TransportConformanceSupport
{
    /** 2 MiB plus a little, so 1 MiB reads at odd offsets fit. */
    protected static final int REGION_SIZE = (2 << 20) + 64;
    protected static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);

    private final List<AutoCloseable> resources = new ArrayList<>();

    /** The transport under test. */
    /** A worker's duty with nothing of its own to do (its transport's progress only). */
    public static final class IdleDuty implements Agent
    {
        @Override
        public int doWork()
        {
            return 0;
        }

        @Override
        public String roleName()
        {
            return "idle";
        }
    }

    protected abstract TransportProvider provider();

    /**
     * Configuration for both sides. The operation timeout counts from acceptance (pending time included), so it must
     * cover the bulk tests on a loaded machine; tests that need a short one set their own.
     */
    protected TransportConfig config()
    {
        return TransportConfig.builder()
            .connectTimeout(Duration.ofSeconds(2))
            .operationTimeout(Duration.ofSeconds(20))
            .build();
    }

    @AfterEach
    void closeResources()
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            try
            {
                resources.get(i).close();
            }
            catch (final Exception ignore)
            {
                // best effort: a test failure is already reported
            }
        }
        resources.clear();
    }

    protected <T extends AutoCloseable> T closeLater(final T resource)
    {
        resources.add(resource);
        return resource;
    }

    /** Skip (with the reason printed) unless the provider is available and declares {@code capability}. */
    protected void assumeCapability(final TransportCapability capability)
    {
        assumeAvailable();
        assumeTrue(provider().capabilities().has(capability),
            () -> provider().name() + " lacks " + capability + ": test skipped");
    }

    protected void assumeAvailable()
    {
        assumeTrue(provider().isAvailable(),
            () -> provider().name() + " unavailable: " + provider().unavailabilityCause());
    }

    /** Drive workers as applications do ({@link io.rdmakv.transport.progress.Progress#start}) instead of polling them on a runner. */
    protected boolean progressByModel()
    {
        return false;
    }

    protected Transport open(final TransportConfig config)
    {
        assumeAvailable();
        return closeLater(provider().open(config));
    }

    protected Peer peer(final String name, final TransportConfig config)
    {
        final Transport transport = open(config);
        final Worker worker = transport.createWorker(name);
        final ProgressGate gate = new ProgressGate();
        if (progressByModel())
        {
            final WorkerProgress progress = closeLater(Progress.start(worker, gate, name + "-progress",
                Throwable::printStackTrace));
            return new Peer(transport, worker, progress, gate, progress::signal);
        }
        final AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(1, 10, 1_000, 100_000),
            Throwable::printStackTrace, null, new CompositeAgent(worker, gate));
        AgentRunner.startOnThread(runner);
        closeLater(runner);
        return new Peer(transport, worker, runner, gate, () ->
        {
        });
    }

    /** A server peer listening on loopback and a client peer connected to it, each with its own transport. */
    protected Connection connect(final TransportConfig serverConfig, final TransportConfig clientConfig)
        throws Exception
    {
        final Peer server = peer("server", serverConfig);
        final Peer client = peer("client", clientConfig);
        final Listener listener = closeLater(server.worker.listen(LOOPBACK, server.handler));
        // The transport's own connect timeout ends a connect that does not work out; this bound only guards a hang,
        // so it must not be shorter (a first verbs connect under qemu emulation took more than 10 s once).
        final long hangGuardMillis = clientConfig.connectTimeout().plusSeconds(30).toMillis();
        final Endpoint clientEndpoint = client.worker
            .connect(new InetSocketAddress("127.0.0.1", listener.localAddress().getPort()), client.handler)
            .get(hangGuardMillis, TimeUnit.MILLISECONDS);
        assertTrue(server.handler.connected.await(hangGuardMillis, TimeUnit.MILLISECONDS),
            "server never saw the connection");
        return new Connection(server, client, listener, clientEndpoint, server.handler.endpoint.get());
    }

    protected Connection connect() throws Exception
    {
        return connect(config(), config());
    }

    /** Register a direct buffer of {@code size} bytes filled with {@link #pattern(int)} for remote read. */
    protected Region region(final Transport transport, final int size)
    {
        final UnsafeBuffer view = registrableMemory(size);
        final ByteBuffer memory = view.byteBuffer();
        for (int i = 0; i < size; i++)
        {
            view.putByte(i, pattern(i));
        }
        final MemoryRegion mr = transport.memoryDomain().register(
            view.addressOffset(), size, EnumSet.of(MemoryAccess.REMOTE_READ, MemoryAccess.LOCAL_WRITE));
        closeLater(mr);
        return new Region(memory, view, mr);
    }

    /**
     * Memory a test registers for remote reads, released after the test: a direct buffer, unless the transport
     * registers only memory it can share with another process (shm: a shared memory file).
     */
    protected UnsafeBuffer registrableMemory(final int size)
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(size));
    }

    /** The byte at {@code offset} of every test region. */
    protected static byte pattern(final int offset)
    {
        return (byte)(offset * 131 + (offset >>> 8) * 7 + 3);
    }

    /** The status an async operation ended with: OK, or the status of its {@link TransportException}. */
    protected static TransportStatus statusOf(final CompletableFuture<?> future) throws Exception
    {
        try
        {
            future.get(15, TimeUnit.SECONDS);
            return TransportStatus.OK;
        }
        catch (final ExecutionException e)
        {
            if (e.getCause() instanceof TransportException te)
            {
                return te.status();
            }
            throw e;
        }
    }

    protected static void awaitTrue(final BooleanSupplier condition, final Duration timeout, final String what)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("timed out after " + timeout + " waiting for: " + what);
            }
            Thread.sleep(2);
        }
    }

    /** Park briefly so the progress threads can return credits. */
    protected static void backOff()
    {
        Thread.onSpinWait();
        Thread.yield();
    }

    /** One side: its transport, worker (driven by its own runner or progress) and recording handler. */
    protected static final class Peer
    {
        public final Transport transport;
        public final Worker worker;
        /** What drives the worker: an AgentRunner or a WorkerProgress; closing it stops progress. */
        public final AutoCloseable progress;
        public final RecordingHandler handler = new RecordingHandler();
        private final ProgressGate gate;
        private final Runnable wake;

        Peer(final Transport transport, final Worker worker, final AutoCloseable progress, final ProgressGate gate,
            final Runnable wake)
        {
            this.transport = transport;
            this.worker = worker;
            this.progress = progress;
            this.gate = gate;
            this.wake = wake;
        }

        /** Park this side's progress thread between two cycles until {@link #releaseProgress()}; returns then. */
        public void holdProgress() throws InterruptedException
        {
            gate.hold(wake);
        }

        public void releaseProgress()
        {
            gate.release();
        }

        /** Returns once this side's progress ran a whole cycle that started after the call (a fence). */
        public void awaitFullCycle() throws InterruptedException
        {
            gate.awaitFullCycle(wake);
        }
    }

    /** A connected pair of endpoints. */
    protected record Connection(Peer server, Peer client, Listener listener, Endpoint clientEndpoint,
        Endpoint serverEndpoint)
    {
    }

    /** A registered region over a direct buffer holding {@link #pattern(int)}. */
    protected record Region(ByteBuffer memory, UnsafeBuffer view, MemoryRegion registration)
    {
        public long base()
        {
            return registration.address();
        }
    }

    /**
     * Records endpoint events (on the progress thread). When sequence checking is on, every message must carry the
     * next sequence number, the size {@link #messageSize} gives for it and the payload pattern.
     */
    protected static final class RecordingHandler implements EndpointHandler
    {
        public final CountDownLatch connected = new CountDownLatch(1);
        public final AtomicReference<Endpoint> endpoint = new AtomicReference<>();
        public final AtomicInteger messages = new AtomicInteger();
        public final AtomicInteger disconnects = new AtomicInteger();
        public final CountDownLatch disconnected = new CountDownLatch(1);
        public final AtomicReference<TransportStatus> disconnectStatus = new AtomicReference<>();
        public final AtomicReference<String> firstError = new AtomicReference<>();
        public volatile int maxMessage = -1;
        private int expectedSequence;

        public RecordingHandler()
        {
        }

        @Override
        public void onConnected(final Endpoint ep)
        {
            endpoint.set(ep);
            connected.countDown();
        }

        @Override
        public void onMessage(final Endpoint ep, final DirectBuffer buffer, final int offset, final int length)
        {
            if (maxMessage > 0)
            {
                check(buffer, offset, length);
            }
            messages.incrementAndGet();
        }

        private void check(final DirectBuffer buffer, final int offset, final int length)
        {
            final int expected = expectedSequence++;
            final int sequence = length >= 4 ? buffer.getInt(offset) : -1;
            final int size = messageSize(expected, maxMessage);
            if (sequence != expected || length != size ||
                (length > 4 && buffer.getByte(offset + length - 1) != messageByte(expected, length - 1)))
            {
                firstError.compareAndSet(null, "message " + expected + ": got sequence " + sequence +
                    ", length " + length + " (expected " + size + ")");
            }
        }

        @Override
        public void onDisconnected(final Endpoint ep, final TransportStatus status, final String detail)
        {
            disconnects.incrementAndGet();
            disconnectStatus.set(status);
            disconnected.countDown();
        }
    }

    /** Size of numbered message {@code sequence}: varied, with a maximum-size message every 1000th. */
    protected static int messageSize(final int sequence, final int maxMessage)
    {
        if (sequence % 1000 == 999)
        {
            return maxMessage;
        }
        final int[] sizes = {4, 5, 64, 1000, 4096, 65_536, 17, 256};
        return Math.min(sizes[sequence % sizes.length], maxMessage);
    }

    protected static byte messageByte(final int sequence, final int index)
    {
        return (byte)(sequence * 7 + index);
    }

    /** Encode numbered message {@code sequence} into {@code buffer}; returns its length. */
    protected static int encodeMessage(final UnsafeBuffer buffer, final int sequence, final int maxMessage)
    {
        final int size = messageSize(sequence, maxMessage);
        for (int i = 4; i < size; i++)
        {
            buffer.putByte(i, messageByte(sequence, i));
        }
        buffer.putInt(0, sequence);
        return size;
    }

    protected static void assertConnected(final Endpoint endpoint)
    {
        assertNotNull(endpoint);
        assertTrue(endpoint.isConnected(), "endpoint should be connected");
    }
}
