package io.rdmakv.transport.verbs;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.ProgressModel;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerWakeup;
import io.rdmakv.transport.event.EventFdWakeup;
import io.rdmakv.transport.verbs.ffi.LibIbverbs;
import io.rdmakv.transport.verbs.ffi.VerbsOps;
import io.rdmakv.transport.verbs.ffi.WorkCompletions;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A verbs progress engine: one completion queue shared by all its endpoints, polled in batches by
 * {@link #doWork()}, one {@link EndpointBufferPool} registered when the worker is created (every endpoint's send,
 * receive and bounce buffers are a slice of it), plus a queue of control-plane tasks (connection set-up and
 * teardown) that other threads hand to it, so that every callback runs on the thread that drives this agent.
 *
 * <p>Idle ({@code verbs.idle}): with {@code events} (the default) the CQ is created on a
 * {@link VerbsCompletionChannel} and the worker is {@link ProgressModel#ARMABLE}: its {@link #wakeup()} polls
 * {channel fd, eventfd} for an idle progress thread, and {@link #execute} signals the eventfd, so tasks from other
 * threads wake it at once. With {@code poll} it is {@link ProgressModel#POLLED}, as before: no channel, bounded parks.
 *
 * <pre>
 *   create:  [channel] -> CQ (on the channel) -> [eventfd] -> endpoint buffers
 *   close:   endpoints, QPs -> [ack CQ events] -> CQ -> buffers -> [channel] -> [eventfd]
 * </pre>
 */
final class VerbsWorker implements Worker
{
    private static final Logger LOG = LoggerFactory.getLogger(VerbsWorker.class);

    private final VerbsTransport transport;
    private final String name;
    private final VerbsConfig config;
    private final VerbsDevice device;
    private final long cq;
    private final int cqDepth;
    private final EndpointBufferLayout layout;
    private final EndpointBufferPool buffers;
    private final WorkCompletions completions;
    private final VerbsOps.PollCq pollCall;
    private final Int2ObjectHashMap<VerbsEndpoint> byQpNumber = new Int2ObjectHashMap<>();
    private final List<VerbsEndpoint> endpoints = new ArrayList<>();
    private final List<VerbsEndpoint> receivesToFlush = new ArrayList<>();
    private final List<VerbsListener> listeners = new ArrayList<>();
    private final ManyToOneConcurrentLinkedQueue<Runnable> tasks = new ManyToOneConcurrentLinkedQueue<>();
    /** Held by every doWork (the progress thread's or a waiting caller's) and by close. */
    private final Object progressLock = new Object();
    /** Held by the idle progress thread's arm and wait, and by close (taken after progressLock). */
    private final Object waitLock = new Object();
    /** Non-null with verbs.idle=events: the CQ's channel, the eventfd beside it, and the worker's wake-up. */
    private final VerbsCompletionChannel channel;
    private final EventFdWakeup events;
    private final WorkerWakeup wakeup;
    /** The fast path's counters of this worker and its endpoints, closed ones included ({@link VerbsCounters}). */
    final WorkerCounters fastPath;
    private int cqReserved;
    private long nextTimeoutCheck;
    private volatile boolean closing;
    private volatile boolean closed;
    private boolean cqDestroyed;

    VerbsWorker(final VerbsTransport transport, final String name, final VerbsConfig config, final VerbsDevice device)
    {
        this.transport = transport;
        this.name = name;
        this.config = config;
        this.device = device;
        this.layout = config.endpointLayout(device.maxQpWr);
        this.cqDepth = Math.min(config.cqDepth, device.maxCqe);
        this.channel = config.idle == VerbsConfig.IdleMode.EVENTS ? VerbsCompletionChannel.create(device) : null;
        this.cq = LibIbverbs.ibv_create_cq(device.context, cqDepth, 0, channel == null ? 0 : channel.address(), 0);
        if (cq == 0)
        {
            final int errno = LibIbverbs.errno();
            destroyChannel();
            throw new TransportException("ibv_create_cq(" + cqDepth + ") failed: " + LibIbverbs.describeErrno(errno));
        }
        final long start = System.nanoTime();
        EventFdWakeup eventFd = null;
        try
        {
            if (channel != null)
            {
                channel.attach(cq);
                eventFd = new EventFdWakeup(channel, config.idleWaitNs, config.idleMaxWaitNs);
            }
            // The one registration of endpoint memory this worker makes: connecting never registers.
            this.buffers = EndpointBufferPool.register(transport.domain(), name, layout, config.maxEndpoints);
        }
        catch (final RuntimeException e)
        {
            LibIbverbs.ibv_destroy_cq(cq);
            destroyChannel();
            if (eventFd != null)
            {
                eventFd.close();
            }
            throw e;
        }
        this.events = eventFd;
        this.wakeup = eventFd == null ? null : new ChannelWakeup();
        this.fastPath = new WorkerCounters(channel, eventFd, progressLock, endpoints);
        LOG.info("verbs worker {}: buffers for {} endpoints registered ({} KiB each, {} MiB) in {} ms; idle: {}", name,
            config.maxEndpoints, layout.sliceBytes / 1024, buffers.bytes() >> 20,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), channel == null ?
                "poll (verbs.idle=poll: spin, yield, park <= 100 us)" :
                "events (verbs.idle=events: sleeps on completion channel fd " + channel.fd() + " + eventfd " +
                    eventFd.eventFd() + ", " + TimeUnit.NANOSECONDS.toMillis(config.idleWaitNs) + " ms after work, " +
                    "doubling while idle up to " + TimeUnit.NANOSECONDS.toMillis(config.idleMaxWaitNs) + " ms)");
        this.completions = new WorkCompletions(config.pollBatch);
        this.pollCall = device.ops.pollCq(cq, config.pollBatch, completions.address());
    }

    VerbsDevice device()
    {
        return device;
    }

    VerbsMemoryDomain memoryDomain()
    {
        return transport.domain();
    }

    /** Run {@code task} on this worker's thread at its next {@link #doWork()}; wakes a sleeping worker. */
    void execute(final Runnable task)
    {
        tasks.offer(task);
        if (events != null)
        {
            events.signal();
        }
    }

    /** Tasks handed to this worker and not run yet (tests: to know that news from another thread has arrived). */
    int queuedTasks()
    {
        return tasks.size();
    }

    @Override
    public ProgressModel progressModel()
    {
        return wakeup != null ? ProgressModel.ARMABLE : ProgressModel.POLLED;
    }

    @Override
    public WorkerWakeup wakeup()
    {
        if (wakeup == null)
        {
            return Worker.super.wakeup();
        }
        return wakeup;
    }

    @Override
    public Map<String, Number> counters()
    {
        return fastPath.snapshot().toMap();
    }

    /** verbs.idle=events only: the eventfd wake-up and its counters (tests, diagnostics). */
    EventFdWakeup events()
    {
        return events;
    }

    private void destroyChannel()
    {
        if (channel != null)
        {
            channel.destroy();
        }
    }

    /**
     * Create an endpoint's QP over a free slice of this worker's registered buffers (worker thread; set-up, not data
     * path).
     *
     * @throws TransportException naming the setting to raise when no slice or completion-queue room is left.
     */
    VerbsEndpoint createEndpoint(final EndpointHandler handler, final InetSocketAddress remote)
    {
        if (closed)
        {
            throw new TransportException(TransportStatus.CLOSED, "worker " + name + " is closed", null);
        }
        final int needed = cqEntriesPerEndpoint();
        if (cqReserved + needed > cqDepth)
        {
            throw new TransportException(TransportStatus.NOT_CONNECTED, "worker " + name + " completion queue (" +
                cqDepth + " entries) has no room for another endpoint (" + endpoints.size() + " open); raise " +
                "verbs.cqDepth or use more workers", null);
        }
        final EndpointBufferPool.Slice slice = buffers.take();
        final VerbsEndpoint ep;
        try
        {
            ep = new VerbsEndpoint(this, config, device, cq, layout, slice, handler, remote,
                ControlChannel.randomPsn());
        }
        catch (final RuntimeException e)
        {
            buffers.giveBack(slice);
            throw e;
        }
        cqReserved += needed;
        byQpNumber.put(ep.qp.qpNumber, ep);
        endpoints.add(ep);
        return ep;
    }

    private int cqEntriesPerEndpoint()
    {
        return layout.sendDepth + layout.recvDepth;
    }

    /** {@code ep} consumed receives in this poll batch; re-post them at its end (worker thread). */
    void receivesToFlush(final VerbsEndpoint ep)
    {
        receivesToFlush.add(ep);
    }

    /** Drop an endpoint after teardown and take its slice back (worker thread, or close under the lock). */
    void forget(final VerbsEndpoint ep)
    {
        if (!endpoints.remove(ep))
        {
            return;
        }
        // A QP number may be reused by a newer QP: remove the mapping only if it is still this endpoint's.
        if (byQpNumber.get(ep.qp.qpNumber) == ep)
        {
            byQpNumber.remove(ep.qp.qpNumber);
        }
        cqReserved -= cqEntriesPerEndpoint();
        fastPath.retire(ep);
        // Teardown released the QP before asking for this; released again to be certain (idempotent) before the
        // slice can go to another endpoint.
        ep.resources().release();
        buffers.giveBack(ep.resources().slice);
    }

    @Override
    public int doWork()
    {
        // Uncontended except when another thread closes the worker: then it must not destroy the CQ mid-poll.
        synchronized (progressLock)
        {
            return doWorkLocked();
        }
    }

    private int doWorkLocked()
    {
        int work = runTasks();
        if (closed || cqDestroyed)
        {
            return work;
        }
        work += pollCompletions();
        final long now = System.nanoTime();
        if (now - nextTimeoutCheck >= 0)
        {
            nextTimeoutCheck = now + TimeUnit.MILLISECONDS.toNanos(10);
            for (int i = endpoints.size() - 1; i >= 0; i--)
            {
                endpoints.get(i).checkTimeouts(now);
            }
        }
        return work;
    }

    /**
     * One poll of the CQ (at most {@code verbs.pollBatch} completions), each handed to its endpoint, then the
     * receives consumed re-posted. Worker thread, under the progress lock: from {@link #doWork()} or a task it runs.
     *
     * @return the completions taken (1 when the poll itself failed and every endpoint was failed).
     */
    private int pollCompletions()
    {
        if (closed || cqDestroyed)
        {
            return 0;
        }
        final int n = pollCall.poll();
        fastPath.polled(n);
        if (n < 0)
        {
            failAll(TransportStatus.TRANSPORT_ERROR, "ibv_poll_cq failed (" + n + "): completion queue in error");
            return 1;
        }
        for (int i = 0; i < n; i++)
        {
            final VerbsEndpoint ep = byQpNumber.get(completions.qpNum(i));
            if (ep != null)
            {
                ep.onCompletion(completions, i);
            }
        }
        for (int i = 0; i < receivesToFlush.size(); i++)
        {
            receivesToFlush.get(i).flushReceives();
        }
        receivesToFlush.clear();
        return n;
    }

    /**
     * Take every completion the device has delivered so far (the CQ holds at most its depth; completions arriving
     * meanwhile from other endpoints cannot keep it going longer than that). For a task that is about to act on news
     * from outside the device (the side channel's loss), so that what the device already reported is seen first.
     * Worker thread, inside a task.
     *
     * @return the completions taken.
     */
    int drainCompletions()
    {
        int taken = 0;
        for (int polls = cqDepth / config.pollBatch + 1; polls > 0; polls--)
        {
            final int n = pollCompletions();
            taken += n;
            if (n < config.pollBatch)
            {
                break;
            }
        }
        return taken;
    }

    private int runTasks()
    {
        int count = 0;
        Runnable task;
        while ((task = tasks.poll()) != null)
        {
            task.run();
            count++;
        }
        return count;
    }

    private void failAll(final TransportStatus status, final String detail)
    {
        for (final VerbsEndpoint ep : new ArrayList<>(endpoints))
        {
            ep.fail(status, detail);
        }
    }

    @Override
    public Listener listen(final InetSocketAddress bindAddress, final EndpointHandler handler)
    {
        if (closed)
        {
            throw new TransportException(TransportStatus.CLOSED, "worker " + name + " is closed", null);
        }
        final ServerBootstrap bootstrap = new ServerBootstrap()
            .group(transport.eventLoops())
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(ControlChannel.serverInitializer(this, handler, config.handshakeTimeoutMs));
        final Channel channel;
        try
        {
            channel = bootstrap.bind(bindAddress).syncUninterruptibly().channel();
        }
        catch (final RuntimeException e)
        {
            throw new TransportException("verbs listen on " + bindAddress + " failed: " + e, e);
        }
        final VerbsListener listener = new VerbsListener(channel);
        synchronized (listeners)
        {
            listeners.add(listener);
        }
        return listener;
    }

    @Override
    public CompletableFuture<Endpoint> connect(final InetSocketAddress remoteAddress, final EndpointHandler handler)
    {
        final CompletableFuture<Endpoint> future = new CompletableFuture<>();
        if (closed)
        {
            future.completeExceptionally(new TransportException(TransportStatus.CLOSED, "worker is closed", null));
            return future;
        }
        final ControlChannel.ClientSide clientSide = new ControlChannel.ClientSide(this, handler, future, remoteAddress);
        final Bootstrap bootstrap = new Bootstrap()
            .group(transport.eventLoops())
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)Math.min(Integer.MAX_VALUE, config.connectTimeoutMs))
            .handler(new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(final SocketChannel ch)
                {
                    ControlChannel.initPipeline(ch, clientSide);
                }
            });
        bootstrap.connect(remoteAddress).addListener(f ->
        {
            if (!f.isSuccess())
            {
                execute(() -> future.completeExceptionally(new TransportException(TransportStatus.NOT_CONNECTED,
                    "verbs connect to " + remoteAddress + " failed: " + f.cause(), f.cause())));
            }
            else
            {
                final Channel ch = ((io.netty.channel.ChannelFuture)f).channel();
                ch.eventLoop().schedule(() -> execute(() ->
                {
                    if (!future.isDone())
                    {
                        clientSide.failConnect(ch, new TransportException(TransportStatus.TIMED_OUT,
                            "verbs connect to " + remoteAddress + " timed out after " + config.connectTimeoutMs +
                                " ms during the QP handshake", null));
                    }
                }), config.connectTimeoutMs, TimeUnit.MILLISECONDS);
            }
        });
        return future;
    }

    @Override
    public Transport transport()
    {
        return transport;
    }

    @Override
    public String roleName()
    {
        return "verbs-worker-" + name;
    }

    @Override
    public void close()
    {
        // Cut a sleeping progress thread's wait short: it holds the wait lock while it polls the channel.
        closing = true;
        if (events != null)
        {
            events.signal();
        }
        // Lock order, everywhere: progress lock, then wait lock. doWork holds the progress lock and a callback in it
        // may close the worker; an idle arm or wait holds the wait lock alone and returns at once once closing is set.
        synchronized (progressLock)
        {
            synchronized (waitLock)
            {
                closeLocked();
            }
        }
        transport.workerClosed(this);
    }

    /** Under both locks: no doWork, arm or wait in progress. */
    private void closeLocked()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        synchronized (listeners)
        {
            listeners.forEach(VerbsListener::close);
            listeners.clear();
        }
        final List<VerbsEndpoint> open = new ArrayList<>(endpoints);
        for (final VerbsEndpoint ep : open)
        {
            ep.close();
        }
        runTasks();
        for (final VerbsEndpoint ep : open)
        {
            // forget releases the QP again, waiting for a teardown another thread may be running: no QP may
            // outlive the CQ and the buffers.
            forget(ep);
        }
        endpoints.clear();
        byQpNumber.clear();
        if (!cqDestroyed)
        {
            cqDestroyed = true;
            if (channel != null)
            {
                channel.ackAll(); // ibv_destroy_cq waits for every event to be acknowledged
            }
            LibIbverbs.ibv_destroy_cq(cq);
            buffers.close();
            destroyChannel();
            if (events != null)
            {
                events.close(); // last: a late signal() finds it closed and writes nothing
            }
        }
    }

    @Override
    public String toString()
    {
        return roleName();
    }

    /**
     * The worker's {@link WorkerWakeup}: the eventfd wake-up, with the arm and the wait under the wait lock so that a
     * close from another thread never destroys the CQ or the channel while they are in use; close first sets
     * {@code closing} and signals, so a waiting thread returns at once and gives the lock up (the same Dekker pair
     * as every signal). Not the progress lock: a caller driving progress ({@code WorkerProgress.tryProgress}) polls
     * the CQ while the progress thread sleeps, and must not wait for that sleep to end. Arming and polling the same
     * CQ from two threads at once is allowed (libibverbs is thread-safe; the provider serialises CQ access).
     */
    private final class ChannelWakeup implements WorkerWakeup
    {
        @Override
        public void signal()
        {
            events.signal();
        }

        @Override
        public void arm()
        {
            synchronized (waitLock)
            {
                if (!closing && !closed)
                {
                    events.arm();
                }
            }
        }

        @Override
        public boolean await(final long timeoutNanos)
        {
            synchronized (waitLock)
            {
                if (!closing && !closed)
                {
                    return events.await(timeoutNanos);
                }
            }
            // Closed under a progress thread that still runs: sleep out the bound rather than spin.
            LockSupport.parkNanos(Math.min(timeoutNanos, config.idleWaitNs));
            return false;
        }

        @Override
        public long maxBlockNanos()
        {
            return config.idleWaitNs;
        }

        @Override
        public long maxIdleBlockNanos()
        {
            return config.idleMaxWaitNs;
        }

        @Override
        public long wakeups()
        {
            return events.wakeups();
        }
    }
}
