package io.rdmakv.transport.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.ssl.SslHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.AttributeKey;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Lane;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.ProgressModel;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerProgress;
import io.rdmakv.transport.log.RateLimitedLog;
import io.rdmakv.transport.tls.TlsFailures;
import io.rdmakv.transport.tls.TlsGate;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The TCP progress engine. All channels of one worker live on ONE Netty event loop, chosen when the worker is created,
 * so the worker has one I/O thread. Two ways to progress it ({@link ProgressModel#EVENT_DRIVEN}, the worker's
 * property):
 * <pre>
 *   polled (doWork() by an AgentRunner or AgentInvoker): the event loop runs no user code; it posts control events
 *          (accepts, connects, disconnects) to a bounded MPSC queue and completions/messages to per-endpoint queues,
 *          which doWork() drains, running the callbacks and expiring operations past the operation timeout
 *   driven (after driveProgress): the event loop IS the progress thread; callbacks run inline as frames are read,
 *          without queue or hand-off; a TcpProgressDriver runs the timers and the application's duty cycle
 * </pre>
 */
public final class TcpWorker implements Worker
{
    /** The endpoint of a channel, kept on the channel itself: it outlives the pipeline of a failed connect. */
    private static final AttributeKey<TcpEndpoint> ENDPOINT = AttributeKey.valueOf("rdmakv.tcp.endpoint");
    private static final Logger LOG = LoggerFactory.getLogger(TcpWorker.class);
    /** A peer decides how often a TLS mismatch happens: at most a burst of lines, then a count. */
    private static final RateLimitedLog REFUSED_PEERS = RateLimitedLog.of(LOG);
    /** Peers can cause it (an accept flood on a polled worker). */
    private static final RateLimitedLog QUEUE_FULL = RateLimitedLog.of(LOG);
    private static final int CONTROL_CAPACITY = 4096;
    private static final long EXPIRY_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final TcpTransport transport;
    private final String name;
    private final EventLoop eventLoop;
    /** Non-null once the worker is event-driven; then the event loop is the only progress thread. */
    private volatile TcpProgressDriver driver;
    private final ManyToOneConcurrentArrayQueue<Runnable> control = new ManyToOneConcurrentArrayQueue<>(CONTROL_CAPACITY);
    private final Object lock = new Object();
    private volatile TcpEndpoint[] endpoints = new TcpEndpoint[0];
    private final List<TcpListener> listeners = new ArrayList<>();
    private volatile boolean closed;
    private long nextExpiryNanos;

    TcpWorker(final TcpTransport transport, final String name)
    {
        this.transport = transport;
        this.name = name;
        this.eventLoop = transport.eventLoopGroup().next();
    }

    EventLoop eventLoop()
    {
        return eventLoop;
    }

    /** True once the event loop is the progress thread (callbacks inline). */
    boolean isDriven()
    {
        return driver != null;
    }

    @Override
    public ProgressModel progressModel()
    {
        return ProgressModel.EVENT_DRIVEN;
    }

    @Override
    public WorkerProgress driveProgress(final Agent duty, final Duration timerInterval, final ErrorHandler errors)
    {
        synchronized (lock)
        {
            ensureOpen();
            if (driver != null)
            {
                throw new IllegalStateException("worker " + name + " is event-driven already");
            }
            if (endpoints.length > 0 || !listeners.isEmpty())
            {
                throw new IllegalStateException("worker " + name + " must be made event-driven before it listens " +
                    "or connects");
            }
            final TcpProgressDriver d = new TcpProgressDriver(this, duty, timerInterval, errors);
            driver = d;
            d.start();
            return d;
        }
    }

    TcpTransport tcpTransport()
    {
        return transport;
    }

    @Override
    public Transport transport()
    {
        return transport;
    }

    @Override
    public String roleName()
    {
        return "tcp-worker-" + name;
    }

    // ---------------------------------------------------------------- progress

    @Override
    public int doWork()
    {
        if (driver != null)
        {
            throw new IllegalStateException("worker " + name + " is event-driven: its event loop progresses it");
        }
        return progressCycle();
    }

    /** One progress step: control events, endpoint queues, expiry (the driver calls it on the event loop). */
    int progressCycle()
    {
        if (closed)
        {
            return 0;
        }
        int work = 0;
        Runnable event;
        while ((event = control.poll()) != null)
        {
            runEvent(event);
            work++;
        }
        final TcpEndpoint[] eps = endpoints;
        for (final TcpEndpoint ep : eps)
        {
            work += ep.progress();
        }
        final long now = System.nanoTime();
        if (now - nextExpiryNanos >= 0)
        {
            nextExpiryNanos = now + EXPIRY_INTERVAL_NANOS;
            for (final TcpEndpoint ep : eps)
            {
                work += ep.expire(now);
            }
        }
        return work;
    }

    /** Run {@code task} on the progress thread; from I/O threads. Never blocks: retries later if the queue is full. */
    void execute(final Runnable task)
    {
        if (driver != null)
        {
            if (eventLoop.inEventLoop())
            {
                runEvent(task);
            }
            else
            {
                eventLoop.execute(() -> runEvent(task));
            }
            return;
        }
        if (!control.offer(task))
        {
            QUEUE_FULL.warn("worker {}: control queue full, retrying an event in 1 ms", name);
            transport.eventLoopGroup().schedule(() -> execute(task), 1, TimeUnit.MILLISECONDS);
        }
    }

    private void runEvent(final Runnable event)
    {
        try
        {
            event.run();
        }
        catch (final Throwable t)
        {
            LOG.error("worker {}: event handler threw", name, t);
        }
    }

    // ---------------------------------------------------------------- connections

    @Override
    public Listener listen(final InetSocketAddress bindAddress, final EndpointHandler handler)
    {
        ensureOpen();
        if (transport.tls() && !transport.tlsAccepts())
        {
            throw new TransportException(TransportStatus.TRANSPORT_ERROR, "cannot listen on " + bindAddress +
                " with TLS: an accepting side needs its own certificate (tls.certFile, tls.keyFile)", null);
        }
        final ServerBootstrap bootstrap = new ServerBootstrap()
            .group(eventLoop, eventLoop)
            .channel(transport.serverChannelClass())
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(initializer(handler, null));
        final ChannelFuture bind = bootstrap.bind(bindAddress).awaitUninterruptibly();
        if (!bind.isSuccess())
        {
            throw new TransportException(TransportStatus.TRANSPORT_ERROR,
                "cannot listen on " + bindAddress + ": " + bind.cause(), bind.cause());
        }
        final TcpListener listener = new TcpListener(bind.channel(), this);
        synchronized (lock)
        {
            listeners.add(listener);
        }
        return listener;
    }

    /**
     * A Netty {@code ServerBootstrap} on this worker's event loop (group, channel class, {@code SO_REUSEADDR} and
     * {@code TCP_NODELAY} set): a listener of another protocol binds it with its own child handler, and its
     * connections' handlers run on the thread that progresses this worker (an event-driven worker's: its endpoints'
     * callbacks run there too), so they may call what only that thread may call, with no hand-off. The node's RESP
     * port uses it. Closing what it binds is the caller's.
     */
    @Override
    public <T> T unwrap(final Class<T> type)
    {
        if (type == ServerBootstrap.class)
        {
            ensureOpen();
            return type.cast(new ServerBootstrap()
                .group(eventLoop, eventLoop)
                .channel(transport.serverChannelClass())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true));
        }
        return null;
    }

    /** A {@link TcpLane}: a socket of the caller's own, outside this worker's event loop. */
    @Override
    public Lane openLane(final InetSocketAddress remoteAddress, final Duration timeout)
    {
        if (transport.tls())
        {
            throw new UnsupportedOperationException("no caller lanes with TLS: a lane is a plain socket of its own");
        }
        return TcpLane.open(remoteAddress, timeout, transport.config().maxMessageBytes());
    }

    @Override
    public CompletableFuture<Endpoint> connect(final InetSocketAddress remoteAddress, final EndpointHandler handler)
    {
        ensureOpen();
        final CompletableFuture<Endpoint> result = new CompletableFuture<>();
        final Bootstrap bootstrap = new Bootstrap()
            .group(eventLoop)
            .channel(transport.channelClass())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int)Math.min(Integer.MAX_VALUE, transport.config().connectTimeout().toMillis()))
            .handler(initializer(handler, remoteAddress));
        bootstrap.connect(remoteAddress).addListener((ChannelFuture f) ->
        {
            if (f.isSuccess())
            {
                final TcpEndpoint ep = f.channel().pipeline().get(TcpChannelHandler.class).endpoint();
                final SslHandler tls = f.channel().pipeline().get(SslHandler.class);
                if (tls == null)
                {
                    ep.markActive();
                    execute(() -> result.complete(ep));
                    return;
                }
                // Handed out only once the handshake is done; a failed one closes the channel (and retires ep).
                tls.handshakeFuture().addListener(h ->
                {
                    if (h.isSuccess())
                    {
                        ep.markActive();
                        execute(() -> result.complete(ep));
                    }
                    else
                    {
                        final TransportException ex = new TransportException(TransportStatus.NOT_CONNECTED,
                            "connect to " + remoteAddress + ": " + TlsFailures.describe(remoteAddress, h.cause()),
                            h.cause());
                        execute(() -> result.completeExceptionally(ex));
                    }
                });
            }
            else
            {
                // The channel never became active, so no inactive event will retire its endpoint: do it here. Found
                // through the channel's attribute, not its pipeline: a failed channel is closed and its pipeline may
                // already be torn down when this listener runs (the endpoint then stayed in the worker for good).
                final TcpEndpoint failed = f.channel().attr(ENDPOINT).get();
                if (failed != null)
                {
                    removeEndpoint(failed);
                }
                final Throwable cause = f.cause();
                final TransportException ex = new TransportException(TransportStatus.NOT_CONNECTED,
                    "connect to " + remoteAddress + " failed: " + cause, cause);
                execute(() -> result.completeExceptionally(ex));
            }
        });
        return result;
    }

    /** @param remote the address dialled, or null for an accepted connection. */
    private ChannelInitializer<SocketChannel> initializer(final EndpointHandler handler, final InetSocketAddress remote)
    {
        final boolean accepted = remote == null;
        return new ChannelInitializer<>()
        {
            @Override
            protected void initChannel(final SocketChannel ch)
            {
                final TcpEndpoint ep = new TcpEndpoint(TcpWorker.this, ch, handler,
                    !accepted && transport.directWrites() ? transport.directWriteGapNanos() : -1);
                ch.attr(ENDPOINT).set(ep);
                addEndpoint(ep);
                if (accepted && transport.tls())
                {
                    ch.pipeline().addLast(TlsGate.tlsOnly(transport.tlsServer().newHandler(ch.alloc()),
                        (ctx, what) -> REFUSED_PEERS.warn("refused " + what + " from " + ctx.channel().remoteAddress())));
                }
                else if (transport.tls())
                {
                    // A peer that accepts but never answers the handshake fails the connect within its timeout.
                    final SslHandler tls = transport.tlsClient().newHandler(ch.alloc(), remote.getHostString(),
                        remote.getPort());
                    tls.setHandshakeTimeoutMillis(Math.max(1, transport.config().connectTimeout().toMillis()));
                    ch.pipeline().addLast(tls);
                }
                // One handler: it cuts frames in place. No flush consolidation handler: endpoints coalesce their
                // own writes (one flush per write task) and read answers are flushed once per read batch.
                ch.pipeline().addLast(new TcpChannelHandler(ep, transport.responder(), accepted,
                    transport.maxFrameLength()));
            }
        };
    }

    void announceAccepted(final TcpEndpoint ep)
    {
        execute(ep::deliverConnected);
    }

    private void addEndpoint(final TcpEndpoint ep)
    {
        synchronized (lock)
        {
            if (closed)
            {
                ep.channel().close();
                return;
            }
            final TcpEndpoint[] old = endpoints;
            final TcpEndpoint[] copy = Arrays.copyOf(old, old.length + 1);
            copy[old.length] = ep;
            endpoints = copy;
        }
    }

    void removeEndpoint(final TcpEndpoint ep)
    {
        synchronized (lock)
        {
            final TcpEndpoint[] old = endpoints;
            for (int i = 0; i < old.length; i++)
            {
                if (old[i] == ep)
                {
                    final TcpEndpoint[] copy = new TcpEndpoint[old.length - 1];
                    System.arraycopy(old, 0, copy, 0, i);
                    System.arraycopy(old, i + 1, copy, i, old.length - i - 1);
                    endpoints = copy;
                    return;
                }
            }
        }
    }

    void removeListener(final TcpListener listener)
    {
        synchronized (lock)
        {
            listeners.remove(listener);
        }
    }

    /** Endpoints this worker currently progresses (for tests and diagnostics). */
    public int endpointCount()
    {
        return endpoints.length;
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new TransportException(TransportStatus.CLOSED, "worker " + name + " is closed", null);
        }
    }

    /**
     * Close listeners and endpoints; outstanding operations complete with CLOSED on the calling thread. Call it from
     * the progress thread (as {@link org.agrona.concurrent.AgentRunner#close()} does through {@link #onClose()}) or
     * after the progress thread stopped.
     */
    @Override
    public void close()
    {
        if (driver != null && !eventLoop.inEventLoop() && !eventLoop.isShuttingDown())
        {
            // Callbacks run on the event loop: close there, so none runs while endpoints are failed here.
            try
            {
                eventLoop.submit(this::closeHere).awaitUninterruptibly(10_000);
                return;
            }
            catch (final java.util.concurrent.RejectedExecutionException ex)
            {
                // The loop is stopping after all: close here.
            }
        }
        closeHere();
    }

    private void closeHere()
    {
        final List<TcpListener> ls;
        final TcpEndpoint[] eps;
        synchronized (lock)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            ls = new ArrayList<>(listeners);
            eps = endpoints;
            endpoints = new TcpEndpoint[0];
        }
        for (final TcpListener l : ls)
        {
            l.close();
        }
        for (final TcpEndpoint ep : eps)
        {
            ep.closeNow();
        }
        Runnable event;
        while ((event = control.poll()) != null)
        {
            runEvent(event); // e.g. complete connect futures rather than leave them hanging
        }
        transport.removeWorker(this);
    }

    @Override
    public String toString()
    {
        return "TcpWorker{" + name + '}';
    }
}
