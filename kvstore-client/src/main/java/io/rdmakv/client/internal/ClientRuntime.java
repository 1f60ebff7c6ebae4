package io.rdmakv.client.internal;

import io.rdmakv.client.Versioned;
import io.rdmakv.client.WriteResult;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.client.KvClientDiagnostics;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.protocol.wire.ClusterNode;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.ProgressModel;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.tls.TlsSettings;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerProgress;
import io.rdmakv.transport.progress.Progress;
import io.rdmakv.transport.select.TransportSelector;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
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
 * registered read memory, the request slots, the async request queue and the router, and offers the client's
 * operations typed. Public only because {@code KvClient} lives in another package: not part of the API.
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
    private static final byte[] NO_VALUE = new byte[0];
    private static final Logger LOG = LoggerFactory.getLogger(ClientRuntime.class);

    private final KvClientConfig config;
    private final ClientCounters counters = new ClientCounters();
    private final ControlPlaneClient control;
    private final Transport transport;
    private final String selectionSummary;
    private final GetMode getMode;
    private final MemoryRegion readRegion;
    private final WorkerProgress progress;
    private final ClusterRouter router;
    private final Requests requests;
    private final KvClientDiagnostics diagnostics;
    private volatile boolean closed;

    private ClientRuntime(final KvClientConfig config, final ControlPlaneClient control, final Transport transport,
        final int endpointSlots, final TransportNegotiation negotiated, final List<AutoCloseable> opened)
    {
        final String selectionSummary = negotiated.selection().summary();
        this.config = config;
        this.control = control;
        this.transport = transport;
        this.selectionSummary = selectionSummary;
        this.getMode = resolve(config.getMode(), transport.capabilities());

        // One allocation and one registration for every read this client will ever do (never on the data path).
        final int extentCapacity = config.oneSidedBufferBytes();
        final int stride = RequestSlot.EXTENT_OFFSET + extentCapacity;
        final ByteBuffer memory = BufferUtil.allocateDirectAligned(
            alignedCapacity((long)stride * config.maxInFlight()), 64);
        final UnsafeBuffer readMemory = new UnsafeBuffer(memory);
        this.readRegion = transport.memoryDomain().register(readMemory.addressOffset(), readMemory.capacity(),
            EnumSet.of(MemoryAccess.LOCAL_WRITE));
        opened.add(readRegion);

        final RequestSlots requestSlots =
            new RequestSlots(config.maxInFlight(), readMemory, stride, extentCapacity, counters);
        final DeferredPosts deferred = new DeferredPosts(requestSlots.capacity());
        final Worker worker = transport.createWorker("rdmakv-client");
        opened.add(worker);
        // The router makes the two protocols (they route through it again when a node cannot answer).
        this.router = new ClusterRouter(config, control, worker, transport.name(),
            negotiated.offered(), endpointSlots, getMode == GetMode.ONE_SIDED,
            transport.capabilities().has(TransportCapability.READ_IMMEDIATE), requestSlots, deferred, counters);
        opened.add(router);
        final ClientConductor conductor = new ClientConductor(requestSlots, deferred, router.getProtocol(), router.rpc());
        this.progress = Progress.start(worker, conductor, "rdmakv-client-progress",
            ex -> LOG.error("error on the client's progress thread", ex));
        opened.add(progress);
        deferred.wakeUpWith(progress::signal);
        final boolean pollable = worker.progressModel() != ProgressModel.EVENT_DRIVEN;
        final WorkerProgress callerDriver = config.callerDrivenProgress() && pollable ? progress : null;
        final String progressSummary = callerDriver != null ?
            "progress: caller-driven (progress.callerDriven=true: sync calls poll the worker while they wait)" :
            pollable ? "progress: progress thread only (progress.callerDriven=false)" :
                "progress: the transport's I/O thread (" + worker.progressModel() + " worker: callers cannot drive it)";

        router.bootstrap(negotiated.seed(), negotiated.welcome());

        final Welcome welcome = router.firstWelcome();
        final int maxKeyLength = Math.min(ProtocolLimits.MAX_KEY_LENGTH,
            welcome.maxKeyLength() > 0 ? welcome.maxKeyLength() : ProtocolLimits.MAX_KEY_LENGTH);
        final int maxValueLength = Math.min(ProtocolLimits.MAX_FORMAT_VALUE_LENGTH,
            welcome.maxValueLength() > 0 ? welcome.maxValueLength() : ProtocolLimits.DEFAULT_MAX_VALUE_LENGTH);
        this.requests = new Requests(requestSlots, router, counters, progress, callerDriver,
            config.requestTimeout().toNanos(), config.maxQueuedRequests(), transport.name(), maxKeyLength,
            maxValueLength, transport.capabilities().maxSendBytes());
        opened.add(requests);
        this.diagnostics = new ClientDiagnostics(transport, selectionSummary, getMode, counters, requests::queued);
        LOG.info("connected to node {} over {} (GETs {}; {}); {}", welcome.nodeId(), transport.name(),
            getMode == GetMode.ONE_SIDED ? "one-sided" : "by RPC", progressSummary, selectionSummary);
    }

    /**
     * Open the transport, start the progress thread and connect to the first seed that answers.
     *
     * @param config the client's settings.
     * @return the running engine; close it to stop.
     * @throws KvException when the transport cannot open or no seed accepts the client.
     */
    public static ClientRuntime open(final KvClientConfig config)
    {
        final List<AutoCloseable> opened = new ArrayList<>();
        final ControlPlaneClient control = new ControlPlaneClient(TlsSettings.of(config.transportProperties()),
            config.login());
        opened.add(control);
        try
        {
            // The transport is agreed with the first seed that answers: the best both sides have.
            final TransportNegotiation negotiated = TransportNegotiation.with(config, control);
            final TransportSelector.Selection selection = negotiated.selection();
            final TransportProvider provider = selection.provider();
            final boolean hasEndpointSlots = provider.capabilities().has(TransportCapability.ENDPOINT_SLOTS);
            final TransportConfig tc = transportConfig(config, hasEndpointSlots,
                hasEndpointSlots ? clusterNodes(config, negotiated.welcome()) : 1);
            final Transport transport = provider.open(tc);
            opened.add(transport);
            return new ClientRuntime(config, control, transport, transport.endpointSlots(), negotiated,
                opened);
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
                throw KvException.of(KvError.TRANSPORT_FAILED, "cannot open the client's transport: " +
                    te.getMessage(), te);
            }
            throw ex;
        }
    }

    /**
     * The settings the client opens its transport with: its timeouts and every transport property of the builder; on
     * a transport with {@link TransportCapability#ENDPOINT_SLOTS} (verbs) the worker's endpoint slots are one per
     * node of a cluster of {@code clusterNodes} and a spare, at least {@link KvClientBuilder#DEFAULT_ENDPOINT_SLOTS},
     * unless the builder set {@link KvClientBuilder#ENDPOINT_SLOTS} (a transport's default is sized for a server and
     * would pin 16 endpoints' buffers on verbs; the transport's own property, e.g. {@code verbs.maxEndpoints}, wins).
     *
     * @param config       the client's settings.
     * @param hasEndpointSlots      whether the transport's workers have endpoint slots.
     * @param clusterNodes nodes of the cluster map (1 when unknown).
     * @return the transport's settings.
     */
    public static TransportConfig transportConfig(final KvClientConfig config, final boolean hasEndpointSlots,
        final int clusterNodes)
    {
        final TransportConfig.Builder tc = TransportConfig.builder()
            .connectTimeout(config.connectTimeout())
            .operationTimeout(config.requestTimeout());
        if (hasEndpointSlots)
        {
            tc.endpointSlots(Math.max(KvClientBuilder.DEFAULT_ENDPOINT_SLOTS, clusterNodes + 1));
        }
        config.transportProperties().forEach((name, value) -> transportSetting(tc, name, value));
        return tc.build();
    }

    /**
     * How many nodes the cluster map of the first answering seed names, so a client on a transport with endpoint
     * slots sizes them before its worker exists (1 when the builder sets {@code endpointSlots} itself).
     */
    private static int clusterNodes(final KvClientConfig config, final Welcome welcome)
    {
        if (config.transportProperties().containsKey(KvClientBuilder.ENDPOINT_SLOTS))
        {
            return 1;
        }
        return (int)welcome.clusterMap().stream().mapToInt(ClusterNode::nodeId).distinct().count();
    }

    /**
     * The typed transport settings may be given as properties too ({@code maxInflightPerEndpoint},
     * {@code maxPendingPerEndpoint}, {@code maxMessageBytes}, {@code endpointSlots}); every other property goes to the transport as is.
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
                case KvClientBuilder.ENDPOINT_SLOTS -> tc.endpointSlots(Integer.parseInt(value.trim()));
                default -> tc.property(name, value);
            }
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("transport setting " + name + " must be a number, got '" + value + "'");
        }
    }

    /**
     * How {@code mode} serves GETs on a transport with {@code capabilities}: {@link GetMode#AUTO} is one-sided when
     * reads are native, RPC when they would only be emulated; the forced modes stay as they are.
     *
     * @throws IllegalArgumentException when one-sided GETs are forced and the transport cannot read at all.
     */
    static GetMode resolve(final GetMode mode, final TransportCapabilities capabilities)
    {
        if (mode != GetMode.AUTO)
        {
            if (mode == GetMode.ONE_SIDED && !capabilities.canRead())
            {
                throw new IllegalArgumentException(
                    "get mode one-sided was requested but the transport cannot read one-sided at all");
            }
            return mode;
        }
        return capabilities.has(TransportCapability.READ_NATIVE) ? GetMode.ONE_SIDED : GetMode.RPC;
    }

    /** GET with the value's data version, and wait; null when absent. */
    public Versioned getWithVersion(final byte[] key)
    {
        return requests.call(RequestType.GET_VERSIONED, key, null);
    }

    /** {@link #getWithVersion} without blocking. */
    public CompletableFuture<Versioned> getWithVersionAsync(final byte[] key)
    {
        return requests.callAsync(RequestType.GET_VERSIONED, key, null);
    }

    /**
     * A conditional write or a PUT with an expiry, and wait ({@link RecordWriteRequestFlyweight}'s ops OP_PUT,
     * OP_PUT_IF_ABSENT, OP_PUT_IF_VERSION, OP_DELETE_IF_VERSION).
     */
    public WriteResult conditional(final int op, final long expected, final long expiryMillis, final byte[] key,
        final byte[] value)
    {
        return requests.callRecord(RequestType.CONDITIONAL, op, expected, expiryMillis, key, value);
    }

    /** {@link #conditional} without blocking. */
    public CompletableFuture<WriteResult> conditionalAsync(final int op, final long expected, final long expiryMillis,
        final byte[] key, final byte[] value)
    {
        return requests.callRecordAsync(RequestType.CONDITIONAL, op, expected, expiryMillis, key, value);
    }

    /** An atomic batch ({@code count} encoded entries, routed by {@code firstKey}), and wait. */
    public void batch(final byte[] firstKey, final byte[] entries, final int count, final int puts)
    {
        final String refusal = requests.batchRefusal(puts, entries.length);
        if (refusal != null)
        {
            throw new IllegalArgumentException(refusal);
        }
        requests.callBatch(RequestType.BATCH, firstKey, entries, count);
    }

    /** {@link #batch} without blocking. */
    public CompletableFuture<Void> batchAsync(final byte[] firstKey, final byte[] entries, final int count,
        final int puts)
    {
        final String refusal = requests.batchRefusal(puts, entries.length);
        if (refusal != null)
        {
            return CompletableFuture.failedFuture(new IllegalArgumentException(refusal));
        }
        return requests.callBatchAsync(RequestType.BATCH, firstKey, entries, count);
    }

    /** INCREMENT by {@code delta} and wait: the new value. */
    public long increment(final byte[] key, final long delta)
    {
        return requests.callRecord(RequestType.INCREMENT, RecordWriteRequestFlyweight.OP_INCREMENT, 0, delta, key,
            NO_VALUE);
    }

    /** {@link #increment} without blocking. */
    public CompletableFuture<Long> incrementAsync(final byte[] key, final long delta)
    {
        return requests.callRecordAsync(RequestType.INCREMENT, RecordWriteRequestFlyweight.OP_INCREMENT, 0, delta, key,
            NO_VALUE);
    }

    /** Set ({@code expiryMillis} > 0) or remove (0) the key's expiry and wait: whether the key existed. */
    public boolean expireAt(final byte[] key, final long expiryMillis)
    {
        return requests.callRecord(RequestType.EXPIRY, expiryMillis == 0 ? RecordWriteRequestFlyweight.OP_PERSIST :
            RecordWriteRequestFlyweight.OP_EXPIRE, 0, expiryMillis, key, NO_VALUE);
    }

    /** {@link #expireAt} without blocking. */
    public CompletableFuture<Boolean> expireAtAsync(final byte[] key, final long expiryMillis)
    {
        return requests.callRecordAsync(RequestType.EXPIRY, expiryMillis == 0 ?
            RecordWriteRequestFlyweight.OP_PERSIST : RecordWriteRequestFlyweight.OP_EXPIRE, 0, expiryMillis, key,
            NO_VALUE);
    }

    /** The key's expiry (ms since the epoch, 0: none), or -2 when absent; waits. */
    public long expiryOf(final byte[] key)
    {
        return requests.callRecord(RequestType.TTL, RecordWriteRequestFlyweight.OP_TTL, 0, 0, key, NO_VALUE);
    }

    /** {@link #expiryOf} without blocking. */
    public CompletableFuture<Long> expiryOfAsync(final byte[] key)
    {
        return requests.callRecordAsync(RequestType.TTL, RecordWriteRequestFlyweight.OP_TTL, 0, 0, key, NO_VALUE);
    }

    /**
     * GET and wait.
     *
     * @param key the key's bytes.
     * @return the value, or {@code null} when the key is absent.
     */
    public byte[] get(final byte[] key)
    {
        return requests.call(RequestType.GET, key, null);
    }

    /**
     * One KEY_SCAN request and wait: the page of the node that serves the body's first hash slot.
     *
     * @param body a {@link io.rdmakv.protocol.wire.KeyScanRequestFlyweight#body}.
     * @return the answer's page.
     */
    public byte[] keyScan(final byte[] body)
    {
        return requests.call(RequestType.KEY_SCAN, body, null);
    }

    /** {@link #keyScan} without blocking; completes on the progress thread. */
    public CompletableFuture<byte[]> keyScanAsync(final byte[] body)
    {
        return requests.callAsync(RequestType.KEY_SCAN, body, null);
    }

    /**
     * GET over a buffer's remaining bytes and wait.
     *
     * @param key the key between position and limit.
     * @return the value, or {@code null} when the key is absent.
     */
    public byte[] get(final ByteBuffer key)
    {
        return requests.call(RequestType.GET, key, null);
    }

    /**
     * PUT and wait for the node's acknowledgement.
     *
     * @param key   the key's bytes.
     * @param value the value's bytes.
     */
    public void put(final byte[] key, final byte[] value)
    {
        requests.call(RequestType.PUT, key, value);
    }

    /**
     * PUT over buffers' remaining bytes and wait.
     *
     * @param key   the key between position and limit.
     * @param value the value between position and limit.
     */
    public void put(final ByteBuffer key, final ByteBuffer value)
    {
        requests.call(RequestType.PUT, key, value);
    }

    /**
     * DELETE and wait.
     *
     * @param key the key's bytes.
     * @return whether the key existed.
     */
    public boolean delete(final byte[] key)
    {
        return requests.call(RequestType.DELETE, key, null);
    }

    /**
     * DELETE over a buffer's remaining bytes and wait.
     *
     * @param key the key between position and limit.
     * @return whether the key existed.
     */
    public boolean delete(final ByteBuffer key)
    {
        return requests.call(RequestType.DELETE, key, null);
    }

    /**
     * GET without blocking.
     *
     * @param key the key's bytes (not copied).
     * @return the value or {@code null}, completed on the progress thread.
     */
    public CompletableFuture<byte[]> getAsync(final byte[] key)
    {
        return requests.callAsync(RequestType.GET, key, null);
    }

    /**
     * GET over a buffer without blocking.
     *
     * @param key the key between position and limit (not copied).
     * @return the value or {@code null}.
     */
    public CompletableFuture<byte[]> getAsync(final ByteBuffer key)
    {
        return requests.callAsync(RequestType.GET, key, null);
    }

    /**
     * PUT without blocking.
     *
     * @param key   the key's bytes (not copied).
     * @param value the value's bytes (not copied).
     * @return completes when the node acknowledged.
     */
    public CompletableFuture<Void> putAsync(final byte[] key, final byte[] value)
    {
        return requests.callAsync(RequestType.PUT, key, value);
    }

    /**
     * PUT over buffers without blocking.
     *
     * @param key   the key between position and limit (not copied).
     * @param value the value between position and limit (not copied).
     * @return completes when the node acknowledged.
     */
    public CompletableFuture<Void> putAsync(final ByteBuffer key, final ByteBuffer value)
    {
        return requests.callAsync(RequestType.PUT, key, value);
    }

    /**
     * DELETE without blocking.
     *
     * @param key the key's bytes (not copied).
     * @return whether the key existed.
     */
    public CompletableFuture<Boolean> deleteAsync(final byte[] key)
    {
        return requests.callAsync(RequestType.DELETE, key, null);
    }

    /**
     * DELETE over a buffer without blocking.
     *
     * @param key the key between position and limit (not copied).
     * @return whether the key existed.
     */
    public CompletableFuture<Boolean> deleteAsync(final ByteBuffer key)
    {
        return requests.callAsync(RequestType.DELETE, key, null);
    }

    /**
     * GET into a caller's destination and wait; the value goes to {@code sink} where it lies (no array first).
     *
     * @param key  a view of the key's bytes (its capacity is the key's length).
     * @param sink takes the value, on the thread completing the GET.
     * @return whether the key was found.
     */
    public boolean getInto(final DirectBuffer key, final ValueSink sink)
    {
        return requests.call(RequestType.GET_INTO, key, null, sink);
    }

    /** {@link #getInto} without blocking; {@code sink} takes the value before the future completes. */
    public CompletableFuture<Boolean> getIntoAsync(final DirectBuffer key, final ValueSink sink)
    {
        return requests.callAsync(RequestType.GET_INTO, key, null, sink);
    }

    /** PUT from views of the caller's memory (read when the request is encoded) and wait. */
    public void put(final DirectBuffer key, final DirectBuffer value)
    {
        requests.call(RequestType.PUT, key, value, null);
    }

    /** {@link #put(DirectBuffer, DirectBuffer)} without blocking; the views must stay valid until it completes. */
    public CompletableFuture<Void> putAsync(final DirectBuffer key, final DirectBuffer value)
    {
        return requests.callAsync(RequestType.PUT, key, value, null);
    }

    /**
     * GETs of several keys, waiting for all within one request timeout.
     *
     * @param keys the keys' bytes.
     * @return the values in key order, {@code null} for an absent key.
     */
    public List<byte[]> multiGet(final List<byte[]> keys)
    {
        return requests.multiGet(keys);
    }

    /**
     * GETs of several keys without blocking.
     *
     * @param keys the keys' bytes (not copied).
     * @return the values in key order; fails as soon as one GET fails.
     */
    public CompletableFuture<List<byte[]>> multiGetAsync(final List<byte[]> keys)
    {
        return requests.multiGetAsync(keys);
    }

    /**
     * STATS of every node in the cluster map, as ordered {@code name=value} maps by node id; a node that cannot
     * answer is reported as a single {@code error} entry.
     *
     * @return node id to its counters.
     */
    public Map<Integer, Map<String, String>> nodeStats()
    {
        final Map<Integer, Map<String, String>> result = new TreeMap<>();
        for (final int nodeId : new ArrayList<>(router.nodeIds()))
        {
            try
            {
                result.put(nodeId, parseStats(requests.stats(nodeId)));
            }
            catch (final KvException ex)
            {
                // One unreachable node must not hide the others' counters.
                result.put(nodeId, Map.of("error", ex.getMessage()));
            }
        }
        return result;
    }

    /**
     * What the runtime chose and counts.
     *
     * @return the diagnostics view (one per client).
     */
    public KvClientDiagnostics diagnostics()
    {
        return diagnostics;
    }

    /**
     * Largest key accepted.
     *
     * @return bytes, the node's limit.
     */
    public int maxKeyLength()
    {
        return requests.maxKeyLength();
    }

    /**
     * Largest value accepted.
     *
     * @return bytes, the node's limit.
     */
    public int maxValueLength()
    {
        return requests.maxValueLength();
    }

    /** Fail queued requests, close connections, stop the progress thread (in-flight requests fail CLOSED). */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final List<AutoCloseable> toClose = new ArrayList<>();
        toClose.add(requests);
        toClose.add(router);
        toClose.add(progress);
        toClose.add(readRegion);
        toClose.add(transport);
        toClose.add(control);
        closeAll(toClose);
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
