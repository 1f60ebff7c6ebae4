package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.client.HostPort;
import io.rdmakv.protocol.wire.ClusterNode;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.ProgressModel;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerProgress;
import io.rdmakv.transport.select.TransportSelector;
import io.rdmakv.transport.verbs.VerbsTransportProvider;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The engine behind {@link io.rdmakv.client.KvClient}: owns the transport, the worker and its progress thread, the
 * registered read memory, the request slots and the router. Not part of the public API (the package is internal).
 *
 * <pre>
 *   caller threads ──► RequestSlots.acquire ──► ClusterRouter.dispatch ──► OneSidedGetProtocol / RpcProtocol
 *                                                                            │ post read / send
 *   progress thread (WorkerProgress: transport Worker + ClientConductor) ◄───┘ completions, answers
 *        └─► RequestSlots.complete ──► wakes the caller / completes the future
 * </pre>
 * On tcp the progress thread is the worker's Netty event loop (answers are matched where they are read); on verbs
 * a thread of its own that polls while busy and sleeps on the worker's completion channel when idle, and a
 * synchronous caller drives the worker itself while it waits (caller-driven progress, {@code progress.callerDriven}):
 * its answer is then polled, matched and handed back on its own thread, with no wake-up.
 */
public final class ClientRuntime implements AutoCloseable
{
    public static final int GET = RequestSlot.TYPE_GET;
    public static final int PUT = RequestSlot.TYPE_PUT;
    public static final int DELETE = RequestSlot.TYPE_DELETE;

    private static final Logger LOG = LoggerFactory.getLogger(ClientRuntime.class);

    private final KvClientConfig config;
    private final ClientCounters counters = new ClientCounters();
    private final ControlPlaneClient control;
    private final Transport transport;
    private final String selectionSummary;
    private final GetMode getMode;
    private final MemoryRegion readRegion;
    private final RequestSlots slots;
    private final WorkerProgress progress;
    /** {@link #progress} when synchronous callers drive it themselves, else {@code null}. */
    private final WorkerProgress callerDriver;
    private final ClusterRouter router;
    private final int maxKeyLength;
    private final int maxValueLength;
    private final int maxMessageBytes;
    private final long slackNanos;
    private volatile boolean closed;

    private ClientRuntime(final KvClientConfig config, final ControlPlaneClient control, final Transport transport,
        final int endpointSlots, final String selectionSummary, final List<AutoCloseable> opened)
    {
        this.config = config;
        this.control = control;
        this.transport = transport;
        this.selectionSummary = selectionSummary;
        this.getMode = config.getMode().resolve(transport.capabilities());
        this.slackNanos = config.requestTimeout().toNanos();

        // One allocation and one registration for every read this client will ever do (never on the data path).
        final int extentCapacity = config.oneSidedBufferBytes();
        final int stride = RequestSlot.EXTENT_OFFSET + extentCapacity;
        final ByteBuffer memory = BufferUtil.allocateDirectAligned(
            alignedCapacity((long)stride * config.maxInFlight()), 64);
        final UnsafeBuffer readMemory = new UnsafeBuffer(memory);
        this.readRegion = transport.memoryDomain().register(readMemory.addressOffset(), readMemory.capacity(),
            EnumSet.of(MemoryAccess.LOCAL_WRITE));
        opened.add(readRegion);

        final OneSidedGetProtocol getProtocol = new OneSidedGetProtocol(config.readRetries(), counters);
        final RpcProtocol rpc = new RpcProtocol(counters);
        this.slots = new RequestSlots(config.maxInFlight(), readMemory, stride, extentCapacity, getProtocol, counters);
        final ClientConductor conductor = new ClientConductor(slots, getProtocol, rpc);

        final Worker worker = transport.createWorker("rdmakv-client");
        opened.add(worker);
        this.progress = WorkerProgress.start(worker, conductor, "rdmakv-client-progress",
            ex -> LOG.error("error on the client's progress thread", ex));
        opened.add(progress);
        conductor.wakeUpWith(progress::signal);
        final boolean pollable = worker.progressModel() != ProgressModel.EVENT_DRIVEN;
        this.callerDriver = config.callerDrivenProgress() && pollable ? progress : null;
        final String progressSummary = callerDriver != null ?
            "progress: caller-driven (progress.callerDriven=true: sync calls poll the worker while they wait)" :
            pollable ? "progress: progress thread only (progress.callerDriven=false)" :
                "progress: the transport's I/O thread (" + worker.progressModel() + " worker: callers cannot drive it)";

        this.router = new ClusterRouter(config, control, worker, transport.name(), endpointSlots,
            getMode == GetMode.ONE_SIDED, slots, getProtocol, rpc, conductor, counters);
        opened.add(router);
        getProtocol.wire(slots, rpc, conductor);
        rpc.wire(slots, conductor, router);
        router.bootstrap();

        final Welcome welcome = router.firstWelcome();
        this.maxKeyLength = Math.min(ProtocolLimits.MAX_KEY_LENGTH,
            welcome.maxKeyLength() > 0 ? welcome.maxKeyLength() : ProtocolLimits.MAX_KEY_LENGTH);
        this.maxValueLength = Math.min(ProtocolLimits.MAX_FORMAT_VALUE_LENGTH,
            welcome.maxValueLength() > 0 ? welcome.maxValueLength() : ProtocolLimits.DEFAULT_MAX_VALUE_LENGTH);
        this.maxMessageBytes = transport.capabilities().maxSendBytes();
        LOG.info("connected to node {} over {} (GETs {}; {}); {}", welcome.nodeId(), transport.name(),
            getMode == GetMode.ONE_SIDED ? "one-sided" : "by RPC", progressSummary, selectionSummary);
    }

    /**
     * Open the transport, start the progress thread and connect to the first seed that answers.
     *
     * @throws KvException when the transport cannot open or no seed accepts the client.
     */
    public static ClientRuntime open(final KvClientConfig config)
    {
        final List<AutoCloseable> opened = new ArrayList<>();
        final ControlPlaneClient control = new ControlPlaneClient();
        opened.add(control);
        try
        {
            final TransportSelector.Selection selection = TransportSelector.fromClassPath().select(config.transport());
            final String name = selection.provider().name();
            final TransportConfig tc = transportConfig(config, name,
                VerbsTransportProvider.NAME.equals(name) ? clusterNodes(config, control, name) : 1);
            final Transport transport = selection.provider().open(tc);
            opened.add(transport);
            return new ClientRuntime(config, control, transport, endpointSlots(tc, transport.name()),
                selection.summary(), opened);
        }
        catch (final RuntimeException ex)
        {
            java.util.Collections.reverse(opened);
            closeAll(opened);
            if (ex instanceof KvException)
            {
                throw ex;
            }
            if (ex instanceof TransportException te)
            {
                throw new KvException(KvError.TRANSPORT_FAILED, null, "cannot open the client's transport: " +
                    te.getMessage(), te);
            }
            throw ex;
        }
    }

    /**
     * The settings the client opens {@code transportName} with: its timeouts and every transport property of the
     * builder; on verbs {@code verbs.maxEndpoints} is {@link KvClientBuilder#DEFAULT_VERBS_MAX_ENDPOINTS} unless the
     * builder set it (one endpoint per server node is what a client uses; the transport's default, sized for a
     * server, would pin 16 endpoints' buffers).
     */
    public static TransportConfig transportConfig(final KvClientConfig config, final String transportName)
    {
        return transportConfig(config, transportName, 1);
    }

    /**
     * As {@link #transportConfig(KvClientConfig, String)}, for a cluster of {@code clusterNodes} nodes: on verbs the
     * default endpoint slots scale with it (one per node, and one spare for a node's session being replaced).
     */
    public static TransportConfig transportConfig(final KvClientConfig config, final String transportName,
        final int clusterNodes)
    {
        final TransportConfig.Builder tc = TransportConfig.builder()
            .connectTimeout(config.connectTimeout())
            .operationTimeout(config.requestTimeout());
        if (VerbsTransportProvider.NAME.equals(transportName) &&
            !config.transportProperties().containsKey(KvClientBuilder.VERBS_MAX_ENDPOINTS))
        {
            tc.property(KvClientBuilder.VERBS_MAX_ENDPOINTS,
                Integer.toString(Math.max(KvClientBuilder.DEFAULT_VERBS_MAX_ENDPOINTS, clusterNodes + 1)));
        }
        config.transportProperties().forEach((name, value) -> transportSetting(tc, name, value));
        return tc.build();
    }

    /**
     * How many nodes the cluster map of the first answering seed names (1 when none answers: the connect that follows
     * reports that), so a verbs client sizes its endpoint slots before its worker exists.
     */
    private static int clusterNodes(final KvClientConfig config, final ControlPlaneClient control,
        final String transportName)
    {
        if (config.transportProperties().containsKey(KvClientBuilder.VERBS_MAX_ENDPOINTS))
        {
            return 1;
        }
        final Hello hello = new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of(transportName), config.credential());
        for (final HostPort seed : config.seeds())
        {
            try
            {
                final Welcome welcome = control.handshake(seed, hello, config.connectTimeout());
                return (int)welcome.clusterMap().stream().mapToInt(ClusterNode::nodeId).distinct().count();
            }
            catch (final KvException ex)
            {
                LOG.debug("seed {} did not answer the sizing handshake: {}", seed, ex.getMessage());
            }
        }
        return 1;
    }

    /** The endpoints the client's worker can have open at once on verbs ({@code verbs.maxEndpoints}); 0 elsewhere. */
    static int endpointSlots(final TransportConfig tc, final String transportName)
    {
        if (!VerbsTransportProvider.NAME.equals(transportName))
        {
            return 0;
        }
        return tc.intProperty(KvClientBuilder.VERBS_MAX_ENDPOINTS, KvClientBuilder.DEFAULT_VERBS_MAX_ENDPOINTS);
    }

    /**
     * The typed transport settings may be given as properties too ({@code maxInflightPerEndpoint},
     * {@code maxPendingPerEndpoint}, {@code maxMessageBytes}); every other property goes to the transport as is.
     */
    private static void transportSetting(final TransportConfig.Builder tc, final String name, final String value)
    {
        try
        {
            switch (name)
            {
                case "maxInflightPerEndpoint" -> tc.maxInflightPerEndpoint(Integer.parseInt(value.trim()));
                case "maxPendingPerEndpoint" -> tc.maxPendingPerEndpoint(Integer.parseInt(value.trim()));
                case "maxMessageBytes" -> tc.maxMessageBytes(Integer.parseInt(value.trim()));
                default -> tc.property(name, value);
            }
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("transport setting " + name + " must be a number, got '" + value + "'");
        }
    }

    /** Run one request and wait for it. {@code value} only for PUT. */
    public Object call(final int type, final byte[] key, final byte[] value)
    {
        final RequestSlot slot = prepare(type, key.length, value == null ? 0 : value.length, false);
        slot.key.wrap(key);
        slot.keyLength = key.length;
        if (value != null)
        {
            slot.value.wrap(value);
            slot.valueLength = value.length;
        }
        return runSync(slot);
    }

    /** Run one request over the remaining bytes of buffers (positions unchanged), and wait for it. */
    public Object call(final int type, final ByteBuffer key, final ByteBuffer value)
    {
        final RequestSlot slot = prepare(type, key.remaining(), value == null ? 0 : value.remaining(), false);
        wrapBuffers(slot, key, value);
        return runSync(slot);
    }

    /** Start one request; the future completes on the progress thread (keep dependent stages short). */
    public CompletableFuture<Object> callAsync(final int type, final byte[] key, final byte[] value)
    {
        final CompletableFuture<Object> future = new CompletableFuture<>();
        final RequestSlot slot;
        try
        {
            slot = prepare(type, key.length, value == null ? 0 : value.length, true);
        }
        catch (final RuntimeException ex)
        {
            future.completeExceptionally(ex);
            return future;
        }
        slot.key.wrap(key);
        slot.keyLength = key.length;
        if (value != null)
        {
            slot.value.wrap(value);
            slot.valueLength = value.length;
        }
        slot.future = future;
        start(slot);
        return future;
    }

    /** {@link #callAsync(int, byte[], byte[])} over buffers; they must not change until the future completes. */
    public CompletableFuture<Object> callAsync(final int type, final ByteBuffer key, final ByteBuffer value)
    {
        final CompletableFuture<Object> future = new CompletableFuture<>();
        final RequestSlot slot;
        try
        {
            slot = prepare(type, key.remaining(), value == null ? 0 : value.remaining(), true);
        }
        catch (final RuntimeException ex)
        {
            future.completeExceptionally(ex);
            return future;
        }
        try
        {
            wrapBuffers(slot, key, value);
        }
        catch (final RuntimeException ex)
        {
            future.completeExceptionally(ex);
            return future;
        }
        slot.future = future;
        start(slot);
        return future;
    }

    /**
     * STATS of every node in the cluster map, as ordered {@code name=value} maps by node id; a node that cannot
     * answer is reported as a single {@code error} entry.
     */
    public Map<Integer, Map<String, String>> nodeStats()
    {
        final Map<Integer, Map<String, String>> result = new TreeMap<>();
        for (final int nodeId : new ArrayList<>(router.nodeIds()))
        {
            checkCaller();
            final RequestSlot slot = acquire(RequestSlot.TYPE_STATS);
            slot.waiter = Thread.currentThread();
            router.dispatchTo(slot, nodeId);
            try
            {
                result.put(nodeId, parseStats((String)slots.await(slot, slackNanos, callerDriver)));
            }
            catch (final KvException ex)
            {
                // One unreachable node must not hide the others' counters.
                result.put(nodeId, Map.of("error", ex.getMessage()));
            }
        }
        return result;
    }

    public Map<ClientCounter, Long> counters()
    {
        return counters.snapshot();
    }

    public long counter(final ClientCounter counter)
    {
        return counters.get(counter);
    }

    /** The transport in use. */
    public String transportName()
    {
        return transport.name();
    }

    /** The selector's log line: the transport chosen, why, and why every other lost. */
    public String transportSelection()
    {
        return selectionSummary;
    }

    /** How GETs are served, {@link GetMode#AUTO} resolved. */
    public GetMode getMode()
    {
        return getMode;
    }

    /** Registrations done by the client's memory domain (one at start; flat afterwards). */
    public long registrationCount()
    {
        return transport.memoryDomain().registrationCount();
    }

    public int maxKeyLength()
    {
        return maxKeyLength;
    }

    public int maxValueLength()
    {
        return maxValueLength;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final List<AutoCloseable> toClose = new ArrayList<>();
        toClose.add(router);
        toClose.add(progress);
        toClose.add(readRegion);
        toClose.add(transport);
        toClose.add(control);
        closeAll(toClose);
    }

    private RequestSlot prepare(final int type, final int keyLength, final int valueLength, final boolean async)
    {
        if (keyLength <= 0 || keyLength > maxKeyLength)
        {
            throw new IllegalArgumentException(keyLength == 0 ? "key must not be empty" :
                "key of " + keyLength + " bytes exceeds the limit of " + maxKeyLength + " bytes");
        }
        if (type == RequestSlot.TYPE_PUT)
        {
            if (valueLength > maxValueLength)
            {
                throw new IllegalArgumentException("value of " + valueLength + " bytes exceeds the server's limit of " +
                    maxValueLength + " bytes");
            }
            final long message = (long)PutRequestFlyweight.KEY_OFFSET + keyLength + valueLength;
            if (message > maxMessageBytes)
            {
                throw new IllegalArgumentException("a PUT of " + message + " bytes exceeds the " + transport.name() +
                    " transport's message limit of " + maxMessageBytes + " bytes");
            }
        }
        checkCaller();
        final RequestSlot slot = acquire(type);
        if (!async)
        {
            slot.waiter = Thread.currentThread();
        }
        return slot;
    }

    private RequestSlot acquire(final int type)
    {
        if (closed)
        {
            throw new KvException(KvError.CLOSED, "the client is closed");
        }
        final RequestSlot slot = slots.acquire(type, System.nanoTime() + config.requestTimeout().toNanos());
        if (slot == null)
        {
            counters.increment(ClientCounter.FAILURES);
            counters.increment(ClientCounter.TIMEOUTS);
            throw new KvException(KvError.TIMED_OUT, "all " + slots.capacity() + " request slots stayed busy for " +
                config.requestTimeout() + " (raise maxInFlight or the request timeout)");
        }
        return slot;
    }

    private void wrapBuffers(final RequestSlot slot, final ByteBuffer key, final ByteBuffer value)
    {
        try
        {
            wrapViews(slot, key, value);
        }
        catch (final RuntimeException ex)
        {
            slots.release(slot); // nothing was started: hand the slot back before reporting
            throw ex;
        }
    }

    private static void wrapViews(final RequestSlot slot, final ByteBuffer key, final ByteBuffer value)
    {
        slot.key.wrap(key, key.position(), key.remaining());
        slot.keyLength = key.remaining();
        if (value != null)
        {
            if (value.remaining() == 0)
            {
                slot.value.wrap(new byte[0]);
            }
            else
            {
                slot.value.wrap(value, value.position(), value.remaining());
            }
            slot.valueLength = value.remaining();
        }
    }

    private Object runSync(final RequestSlot slot)
    {
        start(slot);
        return slots.await(slot, slackNanos, callerDriver);
    }

    private void start(final RequestSlot slot)
    {
        slot.hash = KeyHash.hash(slot.key, 0, slot.keyLength);
        router.dispatch(slot);
    }

    private void checkCaller()
    {
        if (progress.isProgressThread())
        {
            throw new IllegalStateException("a KvClient call was made on the client's progress thread (from a " +
                "future's dependent stage?): use the *Async methods with thenApplyAsync/thenComposeAsync instead");
        }
    }

    private static Map<String, String> parseStats(final String text)
    {
        final Map<String, String> stats = new LinkedHashMap<>();
        for (final String line : text.split("\n"))
        {
            final int eq = line.indexOf('=');
            if (eq > 0)
            {
                stats.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
            }
            else if (!line.isBlank())
            {
                stats.put(line.trim(), "");
            }
        }
        return stats;
    }

    private static int alignedCapacity(final long bytes)
    {
        if (bytes > Integer.MAX_VALUE - 64)
        {
            throw new IllegalArgumentException("maxInFlight x oneSidedBufferBytes is too large: " + bytes + " bytes");
        }
        return (int)((bytes + 63) & ~63L);
    }

    private static void closeAll(final List<AutoCloseable> resources)
    {
        for (final AutoCloseable r : resources)
        {
            try
            {
                r.close();
            }
            catch (final Exception ex)
            {
                LOG.warn("error while closing {}: {}", r.getClass().getSimpleName(), ex.toString());
            }
        }
    }
}
