package io.rdmakv.transport.shm;

import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.ProgressModel;
import io.rdmakv.transport.WorkerWakeup;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The shm transport's worker (ARMABLE): one {@link #doWork()} reads every endpoint's inbound ring, delivers
 * completions, and about once a millisecond (every cycle while a handshake or a region mapping waits) accepts
 * connections and reads the control sockets. Tasks from other threads (listen, connect) run at its next cycle. Idle,
 * it blocks until a peer writes to one of its rings, a socket has something, or a local signal ({@link ShmWakeup}).
 * <pre>
 *   connecting side                          accepting side (listener @rdmakv-shm-PORT)
 *   connect(), HELLO + [region table r/o] ─► accept; create rings file
 *                                        ◄── WELCOME + [rings file r/w, region table r/o]
 *   map rings, endpoint connected            endpoint connected (after sending WELCOME)
 * </pre>
 * A listener's name lives in the abstract Unix socket namespace: only processes of this host (and network
 * namespace) reach it, and nothing is left on a file system when a process dies.
 */
final class ShmWorker implements Worker
{
    private static final Logger LOG = LoggerFactory.getLogger(ShmWorker.class);
    private static final long CONTROL_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * Hosted on another loop, which watches the wake-up's epoll set (listening and control sockets, level-triggered)
     * and has the next cycle read them ({@link ShmWakeup#takeControlReady}) whenever one is readable: the timed poll
     * is only a safety net then. At 1 ms it cost a tcp node's request thread an accept4 (EAGAIN) every 5 requests.
     */
    private static final long HOSTED_CONTROL_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * Incoming connections that have not said HELLO yet, at most. A newcomer is always taken: when they are all
     * waiting, the oldest incoming one is dropped (shed) instead, as the node's unauthenticated budget does on its TCP
     * ports, so idle connections held against the listener cannot lock a client out. Bounded low because every waiting
     * handshake costs a receive on each control poll.
     */
    static final int MAX_PENDING_HANDSHAKES = 256;
    /** Beyond this many waiting handshakes (a flood), they are polled at most once per {@link #CONTROL_POLL_NANOS}. */
    private static final int BUSY_HANDSHAKES = 16;

    private final ShmTransport transport;
    private final String name;
    private final ManyToOneConcurrentLinkedQueue<Runnable> tasks = new ManyToOneConcurrentLinkedQueue<>();
    private final ArrayList<ShmListener> listeners = new ArrayList<>();
    private final ArrayList<Handshake> handshakes = new ArrayList<>();
    private final ArrayList<ShmEndpoint> endpoints = new ArrayList<>();
    private final ShmWakeup wakeup;
    private long lastControlPoll;
    /** Incoming handshakes dropped to make room for newer ones (the worker's thread writes, any thread reads). */
    private volatile long handshakesShed;
    /** Connections its listeners accepted (the worker's thread writes, any thread reads). */
    private volatile long accepted;
    private volatile boolean closed;

    ShmWorker(final ShmTransport transport, final String name)
    {
        this.transport = transport;
        this.name = name;
        final TransportConfig c = transport.config();
        final long waitNanos = TimeUnit.MILLISECONDS.toNanos(c.intProperty(ShmTransportProvider.PROP_IDLE_WAIT_MS, 10));
        final long maxWaitNanos = Math.max(waitNanos,
            TimeUnit.MILLISECONDS.toNanos(c.intProperty(ShmTransportProvider.PROP_IDLE_MAX_WAIT_MS, 100)));
        final int spinMicros = c.intProperty(ShmTransportProvider.PROP_SPIN_MICROS, Integer.getInteger(
            "rdmakv.transport." + ShmTransportProvider.PROP_SPIN_MICROS, ShmTransportProvider.DEFAULT_SPIN_MICROS));
        if (spinMicros < 0)
        {
            throw new TransportException(ShmTransportProvider.PROP_SPIN_MICROS + " must not be negative: " +
                spinMicros);
        }
        this.wakeup = new ShmWakeup(waitNanos, maxWaitNanos, TimeUnit.MICROSECONDS.toNanos(spinMicros));
    }

    @Override
    public ProgressModel progressModel()
    {
        return ProgressModel.ARMABLE;
    }

    @Override
    public WorkerWakeup wakeup()
    {
        return wakeup.wakeup();
    }

    /** The eventfd peers write to wake this worker. */
    int eventFd()
    {
        return wakeup.eventFd();
    }

    TransportConfig config()
    {
        return transport.config();
    }

    int maxSendBytes()
    {
        return transport.capabilities().maxSendBytes();
    }

    int maxReadBytes()
    {
        return transport.capabilities().maxReadBytes();
    }

    /** Called after a state change from another thread: wakes a blocked worker (a flag check when it runs). */
    void wake()
    {
        wakeup.wakeup().signal();
    }

    static String socketName(final int port)
    {
        return "rdmakv-shm-" + port;
    }

    @Override
    public Listener listen(final InetSocketAddress bindAddress, final EndpointHandler handler)
    {
        ensureOpen();
        int port = bindAddress.getPort();
        UnixSeqPacket socket = null;
        if (port != 0)
        {
            socket = UnixSeqPacket.listen(socketName(port));
            if (socket == null)
            {
                throw new TransportException(TransportStatus.TRANSPORT_ERROR,
                    "shm: cannot listen on port " + port + ": another process listens there on this host", null);
            }
        }
        else
        {
            for (int attempt = 0; attempt < 1000 && socket == null; attempt++)
            {
                port = ThreadLocalRandom.current().nextInt(20_000, 60_000);
                socket = UnixSeqPacket.listen(socketName(port));
            }
            if (socket == null)
            {
                throw new TransportException("shm: found no free port to listen on after 1000 attempts");
            }
        }
        final InetSocketAddress local = new InetSocketAddress(bindAddress.getAddress(), port);
        final ShmListener listener = new ShmListener(this, socket, handler, local);
        tasks.offer(() ->
        {
            listeners.add(listener);
            wakeup.watch(listener.socket().fd());
        });
        wake();
        return listener;
    }

    void removeListener(final ShmListener listener)
    {
        tasks.offer(() ->
        {
            listeners.remove(listener);
            wakeup.unwatch(listener.socket().fd());
            listener.socket().close();
        });
        wake();
    }

    @Override
    public CompletableFuture<Endpoint> connect(final InetSocketAddress remoteAddress, final EndpointHandler handler)
    {
        final CompletableFuture<Endpoint> future = new CompletableFuture<>();
        if (closed)
        {
            future.completeExceptionally(new TransportException(TransportStatus.CLOSED, "worker closed", null));
            return future;
        }
        tasks.offer(() -> startConnect(remoteAddress, handler, future));
        wake();
        return future;
    }

    private void startConnect(final InetSocketAddress remote, final EndpointHandler handler,
        final CompletableFuture<Endpoint> future)
    {
        try
        {
            final UnixSeqPacket socket = UnixSeqPacket.connect(socketName(remote.getPort()));
            final int len = ShmControl.hello(socket.payload());
            if (!socket.send(len, transport.domain().regionTableReadOnlyFd(), eventFd()))
            {
                socket.close();
                throw new TransportException(TransportStatus.PEER_FAILED, "shm: the listener closed the connection",
                    null);
            }
            handshakes.add(new Handshake(socket, handler, future, remote, deadline()));
            wakeup.watch(socket.fd());
        }
        catch (final RuntimeException e)
        {
            future.completeExceptionally(e instanceof TransportException ? e :
                new TransportException(TransportStatus.TRANSPORT_ERROR, "shm: connect failed: " + e, e));
        }
    }

    private long deadline()
    {
        return System.nanoTime() + transport.config().connectTimeout().toNanos();
    }

    @Override
    public int doWork()
    {
        if (closed)
        {
            return 0;
        }
        int work = 0;
        Runnable task;
        while ((task = tasks.poll()) != null)
        {
            task.run();
            work++;
        }
        final long now = System.nanoTime();
        final long controlPollNanos = wakeup.wakeup().isHosted() ? HOSTED_CONTROL_POLL_NANOS : CONTROL_POLL_NANOS;
        final boolean pollControl = now - lastControlPoll >= controlPollNanos ||
            !handshakes.isEmpty() && (handshakes.size() <= BUSY_HANDSHAKES || now - lastControlPoll >= CONTROL_POLL_NANOS) ||
            wakeup.takeControlReady();
        if (pollControl)
        {
            lastControlPoll = now;
            work += accept();
            work += handshake(now);
        }
        for (int i = endpoints.size() - 1; i >= 0; i--)
        {
            final int w = endpoints.get(i).doWork(now, pollControl, transport.domain());
            if (w < 0)
            {
                final ShmEndpoint gone = endpoints.remove(i);
                publishRings();
                gone.rings().close();
            }
            else
            {
                work += w;
            }
        }
        if (work > 0)
        {
            wakeup.disarm();
        }
        return work;
    }

    private void publishRings()
    {
        final ShmRings[] rings = new ShmRings[endpoints.size()];
        for (int i = 0; i < rings.length; i++)
        {
            rings[i] = endpoints.get(i).rings();
        }
        wakeup.inboundRings(rings);
    }

    void unwatch(final int fd)
    {
        wakeup.unwatch(fd);
    }

    private int accept()
    {
        int work = 0;
        for (final ShmListener listener : listeners)
        {
            UnixSeqPacket child;
            while ((child = listener.socket().accept()) != null)
            {
                work++;
                if (handshakes.size() >= MAX_PENDING_HANDSHAKES && !shedOldestIncoming())
                {
                    LOG.warn("shm: {} handshakes of this worker's own connects wait; a new connection on {} is " +
                        "refused", handshakes.size(), listener.localAddress());
                    child.close();
                    continue;
                }
                accepted++;
                handshakes.add(new Handshake(child, listener.handler(), null,
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), deadline()));
                wakeup.watch(child.fd());
            }
        }
        return work;
    }

    /** Drop the oldest incoming handshake (not one of this worker's own connects); false when there is none. */
    private boolean shedOldestIncoming()
    {
        for (int i = 0; i < handshakes.size(); i++)
        {
            final Handshake h = handshakes.get(i);
            if (h.future == null)
            {
                handshakes.remove(i);
                h.fail(TransportStatus.TIMED_OUT, "shm: shed for a newer connection (" + MAX_PENDING_HANDSHAKES +
                    " waited for their HELLO)");
                handshakesShed++;
                if (handshakesShed == 1 || Long.bitCount(handshakesShed) == 1)
                {
                    LOG.warn("shm: {} connections without HELLO at once on this worker: the oldest are dropped " +
                        "({} so far)", MAX_PENDING_HANDSHAKES, handshakesShed);
                }
                return true;
            }
        }
        return false;
    }

    @Override
    public Map<String, Number> counters()
    {
        return Map.of("handshakesShed", handshakesShed, "accepted", accepted);
    }

    private int handshake(final long now)
    {
        int work = 0;
        for (final Iterator<Handshake> it = handshakes.iterator(); it.hasNext(); )
        {
            final Handshake h = it.next();
            final int n = h.socket.receive();
            if (n == UnixSeqPacket.WOULD_BLOCK)
            {
                if (h.deadlineNanos - now <= 0)
                {
                    it.remove();
                    h.fail(TransportStatus.TIMED_OUT, "shm: no handshake within the connect timeout");
                }
                continue;
            }
            it.remove();
            work++;
            try
            {
                if (h.future == null)
                {
                    onHello(h, n);
                }
                else
                {
                    onWelcome(h, n);
                }
            }
            catch (final RuntimeException e)
            {
                h.socket.closeReceivedFds();
                h.fail(TransportStatus.TRANSPORT_ERROR, e.getMessage());
            }
        }
        return work;
    }

    /** Accepting side: HELLO carries the peer's region table; answer WELCOME with the rings and ours. */
    private void onHello(final Handshake h, final int n)
    {
        final int type = ShmControl.type(h.socket.payload(), n);
        if (type != ShmControl.HELLO || n < ShmControl.HELLO_LENGTH || h.socket.receivedFdCount() != 2)
        {
            throw new IllegalStateException("shm: malformed HELLO (type " + type + ", " + n + " bytes)");
        }
        final int version = h.socket.payload().getInt(UnixSeqPacket.payloadOffset() + 4);
        if (version != ShmRings.VERSION)
        {
            final int len = ShmControl.refuse(h.socket.payload(), "unsupported shm version " + version);
            h.socket.send(len);
            throw new IllegalStateException("shm: peer speaks version " + version + ", this side " + ShmRings.VERSION);
        }
        final int tableFd = h.socket.receivedFd(0);
        final int peerEventFd = h.socket.receivedFd(1);
        h.socket.forgetReceivedFds();
        final SharedMapping peerTable;
        final ShmRings rings;
        try
        {
            peerTable = SharedMapping.mapReadOnly(tableFd, 0, ShmMemoryDomain.MAX_REGIONS * 8L);
        }
        catch (final RuntimeException e)
        {
            LibC.close(peerEventFd);
            throw e;
        }
        try
        {
            rings = ShmRings.create(ShmRings.capacityFor(maxSendBytes()));
        }
        catch (final RuntimeException e)
        {
            peerTable.close();
            LibC.close(peerEventFd);
            throw e;
        }
        final int len = ShmControl.welcome(h.socket.payload(), rings.capacity());
        if (!h.socket.send(len, rings.fd(), transport.domain().regionTableReadOnlyFd(), eventFd()))
        {
            rings.close();
            peerTable.close();
            LibC.close(peerEventFd);
            throw new IllegalStateException("shm: the connecting side went away during the handshake");
        }
        connected(h, new ShmEndpoint(this, h.handler, h.socket, rings, peerTable, peerEventFd, h.remote));
    }

    /** Connecting side: WELCOME carries the rings file and the peer's region table. */
    private void onWelcome(final Handshake h, final int n)
    {
        final int type = ShmControl.type(h.socket.payload(), n);
        if (type == ShmControl.REFUSE)
        {
            throw new IllegalStateException("shm: refused: " + ShmControl.refuseReason(h.socket.payload(), n));
        }
        if (n == UnixSeqPacket.END_OF_STREAM)
        {
            throw new IllegalStateException("shm: the listener closed the connection during the handshake");
        }
        if (type != ShmControl.WELCOME || n < ShmControl.WELCOME_LENGTH || h.socket.receivedFdCount() != 3)
        {
            throw new IllegalStateException("shm: malformed WELCOME (type " + type + ", " + n + " bytes)");
        }
        final int capacity = h.socket.payload().getInt(UnixSeqPacket.payloadOffset() + 8);
        final int ringsFd = h.socket.receivedFd(0);
        final int tableFd = h.socket.receivedFd(1);
        final int peerEventFd = h.socket.receivedFd(2);
        h.socket.forgetReceivedFds();
        final ShmRings rings;
        final SharedMapping peerTable;
        try
        {
            rings = ShmRings.attach(ringsFd, capacity);
        }
        catch (final RuntimeException e)
        {
            LibC.close(tableFd);
            LibC.close(peerEventFd);
            throw e;
        }
        try
        {
            peerTable = SharedMapping.mapReadOnly(tableFd, 0, ShmMemoryDomain.MAX_REGIONS * 8L);
        }
        catch (final RuntimeException e)
        {
            rings.close();
            LibC.close(peerEventFd);
            throw e;
        }
        connected(h, new ShmEndpoint(this, h.handler, h.socket, rings, peerTable, peerEventFd, h.remote));
    }

    private void connected(final Handshake h, final ShmEndpoint endpoint)
    {
        endpoints.add(endpoint);
        publishRings();
        endpoint.deliverConnected();
        if (h.future != null)
        {
            h.future.complete(endpoint);
        }
    }

    @Override
    public Transport transport()
    {
        return transport;
    }

    @Override
    public String roleName()
    {
        return "shm-worker-" + name;
    }

    /** Close every endpoint and listener on the calling thread (progress must have stopped). Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        Runnable task;
        while ((task = tasks.poll()) != null)
        {
            task.run();
        }
        for (final Handshake h : handshakes)
        {
            h.fail(TransportStatus.CLOSED, "worker closed");
        }
        handshakes.clear();
        for (final ShmListener l : listeners)
        {
            l.socket().close();
        }
        listeners.clear();
        for (final ShmEndpoint e : endpoints)
        {
            e.closeFromWorker();
        }
        wakeup.inboundRings(new ShmRings[0]);
        for (final ShmEndpoint e : endpoints)
        {
            e.rings().close();
        }
        endpoints.clear();
        wakeup.close();
        transport.forget(this);
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new TransportException(TransportStatus.CLOSED, "worker closed", null);
        }
    }

    /** A connection between accept/connect and its first message. */
    private static final class Handshake
    {
        final UnixSeqPacket socket;
        final EndpointHandler handler;
        final CompletableFuture<Endpoint> future;
        final InetSocketAddress remote;
        final long deadlineNanos;

        Handshake(final UnixSeqPacket socket, final EndpointHandler handler, final CompletableFuture<Endpoint> future,
            final InetSocketAddress remote, final long deadlineNanos)
        {
            this.socket = socket;
            this.handler = handler;
            this.future = future;
            this.remote = remote;
            this.deadlineNanos = deadlineNanos;
        }

        void fail(final TransportStatus status, final String detail)
        {
            socket.close(); // closing the descriptor also takes it out of the epoll set
            if (future != null)
            {
                future.completeExceptionally(new TransportException(status, detail, null));
            }
            else
            {
                LOG.debug("shm: incoming connection dropped: {}", detail);
            }
        }
    }
}
