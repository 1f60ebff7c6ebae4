package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.HostPort;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.TransportAddress;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.Worker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Routes requests to nodes: key hash -> cluster slot -> node (over the last cluster map), one data connection per
 * node opened lazily (handshake, then transport connect), and WRONG_NODE redirects followed by refreshing the map
 * from the node named in the redirect ({@link ClusterMapRefresher} holds the map and refreshes it). Connecting and
 * redirects block on the network, so they happen on callers' threads or on a small control executor, never on the
 * progress thread.
 *
 * <p>When a refreshed map moves a node (the same node id at another control address), its old session is retired:
 * requests already started on it may still be answered there, so it stays open for one request timeout (plus a
 * second of slack) and is then closed, which hands its endpoint slot back to the worker. Any request started on the
 * old session has completed or timed out by then, because its deadline was fixed before it was dispatched.
 */
final class ClusterRouter implements Redirector, AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(ClusterRouter.class);

    private final KvClientConfig config;
    private final ControlPlaneClient control;
    private final Worker worker;
    private final String transportName;
    private final int endpointSlots;
    private final boolean oneSidedGets;
    private final RequestSlots requestSlots;
    private final OneSidedGetProtocol getProtocol;
    private final RpcProtocol rpc;
    private final ClientCounters counters;
    private final Hello hello;
    /** How sessions open caller lanes, or null (none, or a transport without them). */
    private final CallerLanes.Settings laneSettings;
    /** Slack beyond the request timeout before a retired session is closed (the expiry scan's lateness and more). */
    static final long RETIRE_SLACK_NANOS = 1_000_000_000L;
    /** A replicated cluster's map is refreshed this often even when no answer says it changed. */
    static final long REFRESH_EVERY_NANOS = 1_000_000_000L;
    /** Retries of a request in a changing cluster wait 5 ms, doubling to at most 100 ms, until its deadline. */
    static final long BACKOFF_MIN_NANOS = 5_000_000L;
    static final long BACKOFF_MAX_NANOS = 100_000_000L;

    private final ScheduledExecutorService redirects = Executors.newSingleThreadScheduledExecutor(r ->
    {
        final Thread t = new Thread(r, "rdmakv-client-redirects");
        t.setDaemon(true);
        return t;
    });
    private final Map<Integer, NodeSession> sessions = new ConcurrentHashMap<>();
    private final List<NodeSession> retired = new ArrayList<>();
    private final Object connectLock = new Object();
    private final ClusterMapRefresher maps;
    private volatile Welcome firstWelcome;

    /**
     * Creates the two protocols requests are dispatched to; both route through this router again when a node cannot
     * answer (it is their {@link Redirector}).
     *
     * @param endpointSlots  data connections the worker can have open at once ({@code Transport.endpointSlots()}), 0
     *                       when the transport sets no such bound; named in the failure when they are all taken.
     * @param immediateReads whether the transport completes reads on return ({@code Endpoint.readImmediate}).
     * @param deferred       where the protocols leave back-pressured posts for the conductor.
     */
    ClusterRouter(final KvClientConfig config, final ControlPlaneClient control, final Worker worker,
        final String transportName, final List<String> offered, final int endpointSlots, final boolean oneSidedGets,
        final boolean immediateReads, final RequestSlots requestSlots, final DeferredPosts deferred,
        final ClientCounters counters)
    {
        this.config = config;
        this.control = control;
        this.worker = worker;
        this.transportName = transportName;
        this.endpointSlots = endpointSlots;
        this.oneSidedGets = oneSidedGets;
        this.requestSlots = requestSlots;
        this.counters = counters;
        this.rpc = new RpcProtocol(counters, requestSlots, deferred, this);
        this.getProtocol = new OneSidedGetProtocol(config.readRetries(), immediateReads, counters, requestSlots, rpc,
            deferred);
        this.hello = new Hello(ControlFrameCodec.PROTOCOL_VERSION, offered, config.credential());
        this.laneSettings = config.callerLanes() == 0 ||
            !worker.transport().capabilities().has(TransportCapability.CALLER_LANES) ? null :
            new CallerLanes.Settings(config.callerLanes(), worker, control, hello, config.connectTimeout(), counters);
        this.maps = new ClusterMapRefresher(config, control, hello, connectLock);
    }

    /** GETs by one-sided reads (the conductor re-posts them). */
    OneSidedGetProtocol getProtocol()
    {
        return getProtocol;
    }

    /** Requests by send/receive (the conductor re-sends them). */
    RpcProtocol rpc()
    {
        return rpc;
    }

    /**
     * Handshake with the first seed that answers and connect to it. A REJECT ends the attempt at once (another seed
     * of the same cluster would say the same); unreachable seeds are skipped.
     *
     * @param knownSeed the seed that answered the transport negotiation (seeds before it did not answer), or null.
     * @param known     its WELCOME, used instead of a second handshake with it.
     */
    void bootstrap(final HostPort knownSeed, final Welcome known)
    {
        KvException last = null;
        Welcome pending = known;
        boolean reached = knownSeed == null;
        for (final HostPort seed : config.seeds())
        {
            reached |= seed.equals(knownSeed);
            if (!reached)
            {
                continue;
            }
            try
            {
                final Welcome welcome = pending != null ? pending : control.handshake(seed, hello,
                    config.connectTimeout());
                pending = null;
                firstWelcome = welcome;
                maps.replace(ClusterMap.from(welcome, seed));
                synchronized (connectLock)
                {
                    sessions.put(welcome.nodeId(), open(welcome, seed));
                }
                if (maps.current().changes())
                {
                    redirects.scheduleWithFixedDelay(maps::refreshQuietly, REFRESH_EVERY_NANOS, REFRESH_EVERY_NANOS,
                        TimeUnit.NANOSECONDS);
                }
                return;
            }
            catch (final KvException ex)
            {
                pending = null;
                if (ex.error() == KvError.REJECTED || ex.error() == KvError.AUTHENTICATION_FAILED)
                {
                    throw ex;
                }
                LOG.info("seed {} unusable: {}", seed, ex.getMessage());
                last = ex;
            }
        }
        throw KvException.of(last == null ? KvError.CONNECTION_FAILED : last.error(),
            "no seed node answered " + config.seeds() + (last == null ? "" : ": " + last.getMessage()), last);
    }

    /** The first node's WELCOME: limits and facts for the client's own checks. */
    Welcome firstWelcome()
    {
        return firstWelcome;
    }

    /** Route and start {@code requestSlot} (any thread but the progress thread); failures complete the request slot. */
    void dispatch(final RequestSlot requestSlot)
    {
        final NodeSession session;
        try
        {
            session = sessionFor(requestSlot);
        }
        catch (final RuntimeException ex)
        {
            if (maps.current().changes() && reroute(requestSlot, "cannot reach the key's node: " + ex.getMessage()))
            {
                return;
            }
            requestSlot.fail(asKvException(ex));
            requestSlots.complete(requestSlot);
            return;
        }
        start(requestSlot, session);
    }

    /** Start {@code requestSlot} on a given node (STATS). */
    void dispatchTo(final RequestSlot requestSlot, final int nodeId)
    {
        final NodeSession session;
        try
        {
            session = session(nodeId);
        }
        catch (final RuntimeException ex)
        {
            requestSlot.fail(asKvException(ex));
            requestSlots.complete(requestSlot);
            return;
        }
        start(requestSlot, session);
    }

    /** Anything thrown while finding or opening a node's connection, as the typed failure the caller sees. */
    private static KvException asKvException(final RuntimeException ex)
    {
        return ex instanceof KvException kv ? kv :
            KvException.of(KvError.CONNECTION_FAILED, "cannot reach the key's node: " + ex, ex);
    }

    /**
     * Start {@code requestSlot} if its node's connection is open already; never connects nor blocks (async requests).
     *
     * @return false when the node must be connected first (nothing was done).
     */
    boolean dispatchIfConnected(final RequestSlot requestSlot)
    {
        final ClusterMap map = maps.current();
        final int owner = map.route(requestSlot);
        if (owner < 0 || map.liveSession(owner) == null && !map.keep(owner, sessions.get(map.nodeIdOf(owner))))
        {
            return false;
        }
        start(requestSlot, map.session(owner));
        return true;
    }

    private void start(final RequestSlot requestSlot, final NodeSession session)
    {
        requestSlot.session = session;
        if (requestSlot.type == RequestSlot.TYPE_GET && session.oneSided())
        {
            getProtocol.start(requestSlot);
            return;
        }
        final CallerLanes lanes = session.lanes();
        // Sync, on its caller's thread (not a redirect's re-send), others in flight: see docs/transport.md, lanes.
        if (lanes != null && requestSlot.call == null && requestSlot.waiter == Thread.currentThread() && !requestSlots.alone())
        {
            final CallerLanes.Handle lane = lanes.borrow();
            if (lane != null)
            {
                try
                {
                    rpc.callOnLane(requestSlot, lane);
                }
                finally
                {
                    lanes.giveBack(lane);
                }
                return;
            }
        }
        rpc.start(requestSlot);
    }

    java.util.Set<Integer> nodeIds()
    {
        return maps.current().nodeIds();
    }

    /** The session of {@code requestSlot}'s node by the current map (connected if need be); sets its range epoch. */
    private NodeSession sessionFor(final RequestSlot requestSlot)
    {
        final ClusterMap map = maps.current();
        final int owner = map.assignedRoute(requestSlot);
        final NodeSession known = map.liveSession(owner);
        final NodeSession session = known != null ? known : session(map.nodeIdOf(owner));
        map.keep(owner, session);
        return session;
    }

    private NodeSession session(final int nodeId)
    {
        final NodeSession existing = sessions.get(nodeId);
        if (usable(existing, nodeId))
        {
            return existing;
        }
        synchronized (connectLock)
        {
            final NodeSession again = sessions.get(nodeId);
            if (usable(again, nodeId))
            {
                return again;
            }
            final HostPort address = maps.current().controlAddress(nodeId);
            if (address == null)
            {
                throw KvException.of(KvError.CONNECTION_FAILED, "node " + nodeId + " is not in the cluster map");
            }
            final Welcome welcome = control.handshake(address, hello, config.connectTimeout());
            maps.adopt(ClusterMap.from(welcome, address));
            final NodeSession fresh = open(welcome, address);
            final NodeSession old = sessions.put(welcome.nodeId(), fresh);
            if (old != null)
            {
                retire(old);
            }
            if (welcome.nodeId() != nodeId)
            {
                throw KvException.of(KvError.CONNECTION_FAILED, "node at " + address + " is node " +
                    welcome.nodeId() + ", not " + nodeId + " as the map said; map refreshed");
            }
            return fresh;
        }
    }

    /**
     * Keep {@code old} open until every request that may have been started on it is over, then close it (under the
     * connect lock). A session that is dead already is closed at once.
     */
    private void retire(final NodeSession old)
    {
        if (!old.isAlive())
        {
            old.close();
            return;
        }
        retired.add(old);
        final long delayNanos = config.requestTimeout().toNanos() + RETIRE_SLACK_NANOS;
        try
        {
            redirects.schedule(() -> closeRetired(old), delayNanos, TimeUnit.NANOSECONDS);
        }
        catch (final RejectedExecutionException ex)
        {
            // The client is closing: close() closes every retired session.
        }
    }

    private void closeRetired(final NodeSession old)
    {
        synchronized (connectLock)
        {
            if (retired.remove(old))
            {
                LOG.debug("closing the retired session to node {} at {}", old.info().nodeId(),
                    old.info().dataAddress());
                old.close();
            }
        }
    }

    /** Connected, and still where the current map says the node is (a refreshed map may have moved it). */
    private boolean usable(final NodeSession session, final int nodeId)
    {
        return session != null && session.usableIn(maps.current(), nodeId);
    }

    private NodeSession open(final Welcome welcome, final HostPort controlAddress)
    {
        TransportAddress chosen = null;
        for (final TransportAddress a : welcome.transports())
        {
            if (a.transport().equals(transportName))
            {
                chosen = a;
                break;
            }
        }
        if (chosen == null)
        {
            throw KvException.of(KvError.CONNECTION_FAILED, "node " + welcome.nodeId() + " at " + controlAddress +
                " offers no '" + transportName + "' transport; it offers " +
                welcome.transports().stream().map(TransportAddress::transport).toList());
        }
        final RemoteKey remoteKey;
        try
        {
            final byte[] packed = chosen.remoteKey(welcome.remoteKey());
            // Empty: the node keeps its pool's key to itself and hands each session a window's key at ATTACH.
            remoteKey = packed.length == 0 ? null : RemoteKey.unpack(packed);
        }
        catch (final IllegalArgumentException | io.rdmakv.protocol.ProtocolException ex)
        {
            throw KvException.of(KvError.PROTOCOL_ERROR, "node " + welcome.nodeId() +
                " sent an unusable remote key: " + ex.getMessage(), ex);
        }
        final InetSocketAddress dataAddress = new InetSocketAddress(
            ClusterMap.reachableHost(chosen.host(), controlAddress), chosen.port());
        final NodeInfo info = new NodeInfo(welcome.nodeId(), controlAddress, dataAddress, welcome.geometry(), remoteKey,
            welcome.poolHeaderAddress(), welcome.layoutEpoch(), welcome.maxKeyLength(), welcome.maxValueLength());
        final LocationCache locationCache = new LocationCache(oneSidedGets ? config.locationCacheEntries() : 0,
            info.geometry(), config.oneSidedBufferBytes());
        final NodeSession session = new NodeSession(info, oneSidedGets, locationCache, rpc, this, laneSettings);
        try
        {
            final Endpoint endpoint = worker.connect(dataAddress, session)
                .get(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
            session.endpoint(endpoint);
        }
        catch (final TimeoutException ex)
        {
            throw KvException.of(KvError.TIMED_OUT, "no data connection to node " + welcome.nodeId() + " at " +
                dataAddress + " within " + config.connectTimeout(), ex);
        }
        catch (final ExecutionException ex)
        {
            throw KvException.of(KvError.CONNECTION_FAILED, "cannot open the " + transportName +
                " data connection to node " + welcome.nodeId() + " at " + dataAddress + ": " +
                ex.getCause().getMessage() + endpointSlotsHint(openConnections(), endpointSlots), ex.getCause());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw KvException.of(KvError.CLOSED, "interrupted while connecting", ex);
        }
        session.attach(welcome.sessionTicket(), config.connectTimeout());
        LOG.debug("connected to node {} at {} ({})", info.nodeId(), dataAddress, transportName);
        return session;
    }

    /** Data connections this client has open now, retired ones still alive included (under the connect lock). */
    private int openConnections()
    {
        int open = 0;
        for (final NodeSession session : sessions.values())
        {
            open += session.isAlive() ? 1 : 0;
        }
        for (final NodeSession session : retired)
        {
            open += session.isAlive() ? 1 : 0;
        }
        return open;
    }

    /**
     * When every endpoint slot of the client's worker is taken by its own connections, the builder setting that gives
     * it more (the transport's refusal names the transport's property; a client sets it through the builder).
     */
    static String endpointSlotsHint(final int openConnections, final int endpointSlots)
    {
        if (endpointSlots <= 0 || openConnections < endpointSlots)
        {
            return "";
        }
        return ". This client has " + openConnections + " data connections open (one per node) and room for " +
            endpointSlots + ": give it more with KvClientBuilder.transportProperty(\"" +
            KvClientBuilder.ENDPOINT_SLOTS + "\", \"" + (openConnections + 1) + "\") (a client's default is " +
            KvClientBuilder.DEFAULT_ENDPOINT_SLOTS + "; each slot pins one endpoint's buffers, about 5 MiB at " +
            "the default depths)";
    }

    @Override
    public void redirect(final RequestSlot requestSlot, final String target)
    {
        try
        {
            if (requestSlot.redirects == 0)
            {
                redirects.execute(() -> followRedirect(requestSlot, target));
            }
            else
            {
                // Asked again: the cluster is changing (a failover or move not committed yet): back off.
                redirects.schedule(() -> followRedirect(requestSlot, target), backoffNanos(requestSlot), TimeUnit.NANOSECONDS);
            }
        }
        catch (final RejectedExecutionException ex)
        {
            requestSlot.fail(KvError.CLOSED, "the client was closed while " + requestSlot.describe() + " was being redirected");
            requestSlots.complete(requestSlot);
        }
    }

    @Override
    public void sessionLost(final NodeSession session, final String why)
    {
        for (int i = 0, n = requestSlots.capacity(); i < n; i++)
        {
            final RequestSlot requestSlot = requestSlots.requestSlot(i);
            if (requestSlot.phase == RequestSlot.PHASE_AWAIT_RESPONSE && requestSlot.session == session &&
                RequestSlots.claim(requestSlot, RequestSlot.PHASE_AWAIT_RESPONSE))
            {
                final String lost = requestSlot.describe() + " lost its connection to node " + session.info().nodeId() +
                    " at " + session.info().dataAddress() + ": " + why;
                if (!reroute(requestSlot, lost))
                {
                    requestSlot.fail(KvError.CONNECTION_FAILED, lost);
                    requestSlots.complete(requestSlot);
                }
            }
        }
    }

    /**
     * In a replicated cluster the lost request's range may have failed over: take it to be routed again (within its
     * deadline). False when it should fail: a single node, or its deadline has passed.
     */
    private boolean reroute(final RequestSlot requestSlot, final String why)
    {
        if (!maps.current().changes() || System.nanoTime() - requestSlot.deadlineNanos > 0)
        {
            return false;
        }
        requestSlot.lastReroute = why;
        try
        {
            redirects.schedule(() -> followRedirect(requestSlot, null), backoffNanos(requestSlot), TimeUnit.NANOSECONDS);
            return true;
        }
        catch (final RejectedExecutionException ex)
        {
            return false;
        }
    }

    /** 5 ms doubling per retry to 100 ms, never past the request's deadline. */
    private static long backoffNanos(final RequestSlot requestSlot)
    {
        final long backoff = Math.min(BACKOFF_MAX_NANOS, BACKOFF_MIN_NANOS << Math.min(requestSlot.redirects, 5));
        return Math.max(0, Math.min(backoff, requestSlot.deadlineNanos - System.nanoTime()));
    }

    private void followRedirect(final RequestSlot requestSlot, final String target)
    {
        final boolean changing = maps.current().changes();
        if (++requestSlot.redirects > config.maxRedirects() && !changing)
        {
            requestSlot.fail(KvError.TOO_MANY_REDIRECTS, requestSlot.describe() + " was redirected more than " +
                config.maxRedirects() + " times (last to '" + target + "')");
            requestSlots.complete(requestSlot);
            return;
        }
        if (changing && System.nanoTime() - requestSlot.deadlineNanos > 0)
        {
            requestSlot.fail(KvError.TIMED_OUT, requestSlot.describe() + " found no serving primary before its deadline (" +
                requestSlot.redirects + " tries; last: " + (target != null ? "redirected to '" + target + "'" :
                requestSlot.lastReroute) + ")");
            requestSlots.complete(requestSlot);
            return;
        }
        counters.increment(ClientCounter.REDIRECTS);
        try
        {
            if (changing)
            {
                maps.refreshNewest(target);
            }
            else
            {
                maps.refresh(HostPort.parse(target));
            }
        }
        catch (final IllegalArgumentException | KvException ex)
        {
            if (changing && reroute(requestSlot, "map refresh failed: " + ex.getMessage()))
            {
                return;
            }
            requestSlot.fail(KvException.of(KvError.CONNECTION_FAILED, "redirect of " + requestSlot.describe() +
                " to '" + target + "' failed: " + ex.getMessage(), ex));
            requestSlots.complete(requestSlot);
            return;
        }
        dispatch(requestSlot);
    }

    @Override
    public void close()
    {
        redirects.shutdownNow();
        try
        {
            redirects.awaitTermination(2, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        synchronized (connectLock)
        {
            sessions.values().forEach(NodeSession::close);
            retired.forEach(NodeSession::close);
            sessions.clear();
            retired.clear();
        }
    }
}
