package io.rdmakv.server.handler;

import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.KeyScanRequestFlyweight;
import io.rdmakv.protocol.wire.MessageDecoder;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.protocol.wire.ScanRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.admission.AdmissionSettings;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.ReadLeaseGrant;
import io.rdmakv.server.cluster.TakeOvers;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.server.session.Access;
import io.rdmakv.server.session.Revocations;
import io.rdmakv.server.session.SessionTickets;
import io.rdmakv.server.store.DataVersions;
import io.rdmakv.server.store.DiskFullGuard;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreException;
import io.rdmakv.server.store.StoreKeys;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.log.RateLimitedLog;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The data-plane request adapter (Aeron's adapter role): decodes requests that arrive on the transport's endpoints
 * and answers each with one RESPONSE. Runs on the worker's progress thread only, which also makes it the one thread
 * that owns the {@link PoolIndex}.
 *
 * <pre>
 *   first message on an endpoint: ATTACH with a valid session ticket -> RESPONSE OK; the endpoint is served
 *                                 anything else -> RESPONSE UNAUTHENTICATED and the endpoint is closed
 *   PUT    : limits -> route -> RocksDB (durable) -> pool (fresh extent, one ordered slot store) -> RESPONSE OK + slot
 *            (a full disk: DISK_FULL, nothing written)
 *   DELETE : limits -> route -> exists? (pool hit, else RocksDB lookup) -> RocksDB -> pool (slot := 0, retire extent)
 *            -> RESPONSE OK, or NOT_FOUND (nothing written) when the key did not exist
 *   GET    : limits -> route -> pool ? value : pool COMPLETE ? NOT_FOUND : RocksDB ? (promote into pool) value
 *            : NOT_FOUND
 *   STATS  : counters as key=value text
 *   BATCH_WRITE: limits -> one hash slot (else CROSSSLOT) -> route -> records built -> ONE write down the path (one
 *            RocksDB WriteBatch, one REPLICATE, one write id) -> pool, entry by entry -> RESPONSE OK once
 *   KEY_SCAN: route (first hash slot) -> one bounded page of keys (and values) from RocksDB, resume point (KeyScans)
 *   a session limited by a user's role or key prefixes: AccessCheck first, FORBIDDEN when it does not allow it
 *   anything malformed -> RESPONSE with the error status (MALFORMED, UNSUPPORTED_VERSION, ...); the connection stays
 * </pre>
 *
 * <p>Admission: nothing is served on a data endpoint before it attached with the ticket of a control-plane WELCOME
 * ({@link SessionTickets}), so the credential checked by the handshake also guards the data port. Endpoints that
 * have not attached live in their own budget ({@link EndpointAdmission}): the oldest is shed for a newcomer when it
 * is full, and one that does not attach within the handshake timeout is closed.
 *
 * <p>Writes go through one {@link WritePath} the node assembled before this handler: the local one of the durability
 * ({@link WritePaths#local}: one RocksDB batch per progress step on this thread under DEFAULT, group commit under
 * FSYNC), decorated by the write-id check and, in a cluster, replication; it reports each finished write to
 * {@link PoolAndAnswer}, so the pool and the answer always follow the durable write. REPLICATE messages go to the
 * {@link ReplicaInbox}, the one thing this package knows of replication.
 *
 * <p>This class owns decoding, admission, the request checks (key, value, slot routing) and the order of the steps
 * above; answers are encoded and sent by {@link ResponseSender}.
 *
 * <p>A key is hashed once, at decode: the request's key bytes are wrapped in this thread's one {@link HashedKey}
 * (index hash and hash slot, computed by the context's {@link io.rdmakv.protocol.layout.KeyHasher}), which routing,
 * the pool index, the store key and the whole write-path chain read. It is reused by the next request, so nothing
 * below keeps it past its call.
 */
public final class RequestHandler implements EndpointHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(RequestHandler.class);
    /** Peers decide how often these happen; one site per kind. */
    private static final RateLimitedLog SHED_LOG = RateLimitedLog.of(LOG);
    private static final RateLimitedLog TIMEOUT_LOG = RateLimitedLog.of(LOG);
    private static final RateLimitedLog FORBIDDEN_LOG = RateLimitedLog.of(LOG);
    private static final RateLimitedLog REVOKE_LOG = RateLimitedLog.of(LOG);
    private static final long ADMISSION_CHECK_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** How often the users file is looked at for revoked sessions (a stat; the read only when it changed). */
    private static final long REVOCATION_CHECK_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RocksStore store;
    private final PoolIndex index;
    private final ServerCounters counters;
    private final Limits limits;
    /** Replaced on every configuration change (the view's thread); read per request (this thread). */
    private volatile SlotRouter router;
    /** Null on a static node: no lease to check. */
    private volatile ClusterView leaseHolder;
    /** The clock the node lease is timed on (the node's, which a test may run fast or slow). */
    private volatile org.agrona.concurrent.NanoClock leaseClock = System::nanoTime;
    private final AdmissionSettings admissionSettings;
    private final EndpointAdmission admission;

    private final MessageDecoder decoder = new MessageDecoder();
    /** The key of the request being handled, hashed at decode (reused: one per request thread). */
    private final HashedKey key;
    private final ResponseSender responses;
    /** Where a new endpoint's first message is judged: an ATTACH with a ticket, or refused. */
    private final AttachDoor door;
    private final ByteBuffer keyScratch;
    private final UnsafeBuffer keyScratchBuffer;
    /** The client writes' path, finished by the node (write ids, and replication in a cluster, around the local). */
    private final WritePath writes;
    /** Writes and queries from the primaries of ranges this node replicates. */
    private final ReplicaInbox replicaInbox;
    private final ScanPages scans;
    private final KeyScans keyScans;
    private final long[] scanResult = new long[2];
    private final RequestTimer timer;
    private long nextAdmissionCheckNanos;
    /** Each data session's memory window, where the transport has them ({@link #sessionAccess}). */
    private SessionWindows windows;
    private Revocations revocations = Revocations.NONE;
    private long revocationGeneration;
    private long nextRevocationCheckNanos;
    /** The data versions this node issues to the PUTs it takes as a primary. */
    private final DataVersions versions;
    /** A PUT's durable record ({@link ValueRecord}: data version, expiry, value), as the write path stores it. */
    private final UnsafeBuffer record;
    /** The wall clock expiries are compared with. */
    private final java.util.function.LongSupplier clockMillis;
    /** The background removal of expired keys (this node's primary slots). */
    private final ExpirySweep sweep;
    /** Conditional writes, counters and expiry changes. */
    private final RecordWrites recordWrites;
    /** An atomic batch being handed down (its keys hashed once), and the records it is built into. */
    private final KeyBatch batch;
    private final UnsafeBuffer batchRecords;
    private final KeyBatch.RecordMaker batchRecordHeader;

    /**
     * @param node     the store, pool, counters, limits (what requests may carry, how many connections are served)
     *                 and the answers this thread sends.
     * @param context  the routing until {@link #follow}, the session tickets, the admission of endpoints that have
     *                 not attached yet, and the request timer.
     * @param writes   the finished path of client PUTs and DELETEs.
     * @param replicas where REPLICATE messages go.
     */
    public RequestHandler(final NodeWrites node, final HandlerContext context, final WritePath writes,
        final ReplicaInbox replicas)
    {
        this.store = node.store();
        this.index = node.index();
        this.counters = node.counters();
        this.limits = node.limits();
        this.responses = node.responses();
        this.router = context.router();
        this.admissionSettings = context.admission();
        this.timer = context.timer();
        this.key = new HashedKey(context.hasher());
        this.admission = new EndpointAdmission(admissionSettings, limits.maxConnections());
        this.door = new AttachDoor(this.admission, context.tickets(), counters, responses, limits.maxConnections());
        this.windows = new SessionWindows(SessionWindows.NO_WINDOWS, responses::answerAttached, counters, () -> { });
        this.keyScratch = ByteBuffer.allocateDirect(StoreKeys.PREFIX_LENGTH + limits.maxKeyBytes());
        this.keyScratchBuffer = new UnsafeBuffer(keyScratch);
        this.writes = writes;
        this.replicaInbox = replicas;
        this.scans = new ScanPages(store);
        this.keyScans = new KeyScans(store, context.clockMillis());
        this.versions = node.versions();
        this.record = new UnsafeBuffer(ByteBuffer.allocateDirect(ValueRecord.HEADER_LENGTH + limits.maxValueBytes()));
        this.clockMillis = context.clockMillis();
        this.recordWrites = new RecordWrites(store, versions, responses, counters, limits, clockMillis);
        this.batch = new KeyBatch(context.hasher());
        this.batchRecords = new UnsafeBuffer(ByteBuffer.allocateDirect(limits.maxKeyBytes() + limits.maxValueBytes()));
        this.batchRecordHeader = (buffer, index) -> ValueRecord.writeHeader(buffer, index, versions.next(), 0);
        this.sweep = new ExpirySweep(store, recordWrites, counters, clockMillis, context.hasher());
    }

    /**
     * Bind a memory window for each data session {@code binder} serves and hand its key in the ATTACH answer instead
     * of the pool's; end the sessions {@code revocations} revokes. Once, before the request thread starts.
     *
     * @param wakeUp wakes the request thread when a bind completes on another thread.
     */
    public void sessionAccess(final SessionWindows.Binder binder, final Revocations revocations, final Runnable wakeUp)
    {
        this.windows = new SessionWindows(binder, responses::answerAttached, counters, wakeUp);
        this.revocations = revocations;
        this.revocationGeneration = revocations.generation();
        door.sessionAccess(windows, revocations);
    }

    /** Memory windows bound now, one per data session reading through its own (request thread; tests, STATS). */
    public int windowsBound()
    {
        return windows.boundCount();
    }

    @Override
    public void onConnected(final Endpoint endpoint)
    {
        final Endpoint shed = admission.onConnected(endpoint, System.nanoTime());
        counters.increment(ServerCounter.CONNECTIONS);
        counters.increment(ServerCounter.CONNECTIONS_TOTAL);
        if (shed != null)
        {
            counters.increment(ServerCounter.DATA_SHED);
            counters.decrement(ServerCounter.CONNECTIONS);
            SHED_LOG.info("closing data connection from {}: the oldest one not attached when a newer one found {} " +
                "reached", shed.remoteAddress(), admission.lastShedReason());
            shed.close();
        }
    }

    @Override
    public void onDisconnected(final Endpoint endpoint, final TransportStatus status, final String detail)
    {
        if (status == TransportStatus.TRANSPORT_ERROR)
        {
            // The transport refused what the peer sent (a malformed or oversized frame; logged there, rate-limited).
            counters.increment(ServerCounter.MALFORMED_REQUESTS);
        }
        windows.onEnded(endpoint);
        if (admission.onDisconnected(endpoint))
        {
            counters.decrement(ServerCounter.CONNECTIONS);
        }
    }

    @Override
    public void onMessage(final Endpoint endpoint, final DirectBuffer buffer, final int offset, final int length)
    {
        final Access access = admission.accessOf(endpoint);
        if (access == null)
        {
            door.onFirstMessage(endpoint, buffer, offset, length);
            return;
        }
        final MessageType type;
        try
        {
            type = decoder.decode(buffer, offset, length);
        }
        catch (final ProtocolException ex)
        {
            counters.increment(ServerCounter.MALFORMED_REQUESTS);
            final Status status = Status.of(ex.errorCode());
            if (status == Status.KEY_TOO_LARGE || status == Status.VALUE_TOO_LARGE)
            {
                counters.increment(ServerCounter.LIMIT_REJECTIONS);
            }
            flushWrites(); // answered in arrival order
            responses.answerError(endpoint, decoder.correlationId(), status, ex.getMessage());
            return;
        }
        if (!access.unlimited())
        {
            // The one authorisation check: the role and key prefixes of the session this endpoint attached with.
            final String refusal = AccessCheck.refusal(access, type, decoder);
            if (refusal != null)
            {
                counters.increment(ServerCounter.FORBIDDEN);
                FORBIDDEN_LOG.info("refused a request from {}: {}", endpoint.remoteAddress(), refusal);
                flushWrites(); // answered in arrival order
                responses.answerError(endpoint, decoder.correlationId(), Status.FORBIDDEN, refusal);
                return;
            }
        }
        boolean hashed = false;
        if (type == MessageType.GET_REQUEST)
        {
            final KeyRequestFlyweight get = decoder.keyRequest();
            hashed = validKeyLength(get.keyLength()); // a key refused below is not hashed; its answer waits all
            if (!hashed || writes.holdsWriteFor(endpoint, hashKey(get)) || replicaInbox.inFlightWrites() > 0)
            {
                flushWrites(); // it sees a pending PUT of its key, and its connection's answers stay in order
            }
        }
        else if (type != MessageType.PUT_REQUEST)
        {
            flushWrites(); // a DELETE or STATS sees every PUT that arrived before it
        }
        final long correlationId = decoder.correlationId();
        final long start = timer == RequestTimer.NONE ? 0 : System.nanoTime();
        switch (type)
        {
            case PUT_REQUEST ->
            {
                onPut(endpoint, correlationId, decoder.putRequest());
                timed(timer, RequestTimer.Operation.PUT, start);
            }
            case DELETE_REQUEST ->
            {
                onDelete(endpoint, correlationId, decoder.keyRequest());
                timed(timer, RequestTimer.Operation.DELETE, start);
            }
            case GET_REQUEST ->
            {
                onGet(endpoint, correlationId, decoder.keyRequest(), hashed);
                timed(timer, RequestTimer.Operation.GET, start);
            }
            case STATS_REQUEST ->
            {
                onStats(endpoint, correlationId);
                timed(timer, RequestTimer.Operation.STATS, start);
            }
            case REPLICATE_REQUEST -> replicaInbox.onReplicate(endpoint, correlationId, decoder.replicateRequest());
            case SCAN_REQUEST -> onScan(endpoint, correlationId, decoder.scanRequest());
            case KEY_SCAN_REQUEST -> onKeyScan(endpoint, correlationId, decoder.keyScanRequest());
            case RECORD_WRITE_REQUEST -> onRecordWrite(endpoint, correlationId, decoder.recordWriteRequest());
            case BATCH_WRITE_REQUEST -> onBatchWrite(endpoint, correlationId, decoder.batchWriteRequest());
            case ATTACH_REQUEST ->
            {
                counters.increment(ServerCounter.MALFORMED_REQUESTS);
                responses.answerError(endpoint, correlationId, Status.MALFORMED, "endpoint already attached");
            }
            default ->
            {
                counters.increment(ServerCounter.MALFORMED_REQUESTS);
                responses.answerError(endpoint, correlationId, Status.MALFORMED,
                    "a server accepts requests only, not " + type);
            }
        }
    }

    /**
     * The write path's duty cycle (batched or completed writes: pool update and answer); close endpoints that did not
     * attach in time. Returns the work done.
     */
    public int doWork()
    {
        int work = writes.doWork() + replicaInbox.doWork();
        if (store.writesInline())
        {
            work += sweep.doWork(System.nanoTime(), writes, this::primaryOf);
        }
        if (windows.anyCompleted())
        {
            work += windows.doWork();
        }
        if (revocations != Revocations.NONE)
        {
            work += endRevokedSessions(System.nanoTime());
        }
        if (door.attachedSinceSummary())
        {
            door.summarize(System.nanoTime(), admission.attachedCount());
        }
        if (admission.anyWaiting())
        {
            final long now = System.nanoTime();
            if (now - nextAdmissionCheckNanos >= 0)
            {
                nextAdmissionCheckNanos = now + ADMISSION_CHECK_INTERVAL_NANOS;
                for (final Endpoint late : admission.overdue(now))
                {
                    TIMEOUT_LOG.info("closing data connection from {}: no ATTACH within {} ms", late.remoteAddress(),
                        admissionSettings.handshakeTimeout().toMillis());
                    counters.increment(ServerCounter.ATTACH_REFUSALS);
                    counters.increment(ServerCounter.DATA_TIMEOUTS);
                    counters.decrement(ServerCounter.CONNECTIONS);
                    late.close();
                    work++;
                }
            }
        }
        return work;
    }

    /**
     * About once a second: when the users file changed, end every data session it revoked (its user removed, or its
     * password, role or prefixes changed), its memory window first, so its key reads nothing from then on.
     */
    private int endRevokedSessions(final long nowNanos)
    {
        if (nowNanos - nextRevocationCheckNanos < 0)
        {
            return 0;
        }
        nextRevocationCheckNanos = nowNanos + REVOCATION_CHECK_INTERVAL_NANOS;
        final long generation = revocations.generation();
        if (generation == revocationGeneration)
        {
            return 0;
        }
        revocationGeneration = generation;
        final java.util.Map<Endpoint, String> revoked = admission.revoked(revocations::revocation);
        revoked.forEach((endpoint, why) ->
        {
            windows.revoke(endpoint);
            REVOKE_LOG.info("ending the data session from {}: {}", endpoint.remoteAddress(), why);
            endpoint.close(); // onDisconnected forgets it
        });
        return revoked.size();
    }

    private static void timed(final RequestTimer timer, final RequestTimer.Operation op, final long start)
    {
        if (timer != RequestTimer.NONE)
        {
            timer.record(op, System.nanoTime() - start);
        }
    }

    /**
     * Route by {@code view} from now on: the slots it makes this node primary of are served, others answered
     * WRONG_NODE with their primary; when {@code checkLease}, nothing is served while the node lease is not held on
     * {@code clock} (answered WRONG_NODE with this node's own address, so the client refreshes its map and retries).
     *
     * @param selfAddress this node's {@code host:controlPort}.
     * @param readLease   the read lease every answer grants from now on; null: unbounded (a node with no node lease).
     * @param served      the state as served (ranges taken over FENCED until reconciled: reads refused too), which
     *                    follows {@code view}; null: route by {@code view} as it is (no replication).
     */
    public void follow(final ClusterView view, final String selfAddress, final boolean checkLease,
        final org.agrona.concurrent.NanoClock clock, final ReadLeaseGrant readLease, final TakeOvers served)
    {
        if (readLease != null)
        {
            responses.readLease(readLease);
        }
        if (served != null)
        {
            served.subscribe(state -> router = SlotRouter.of(state, view.localNodeId(), selfAddress));
        }
        else
        {
            view.subscribe(state -> router = SlotRouter.of(state, view.localNodeId(), selfAddress));
            router = SlotRouter.of(view.current(), view.localNodeId(), selfAddress);
        }
        leaseClock = clock;
        leaseHolder = checkLease ? view : null;
    }

    /** Writes handed to group commit and not answered yet. */
    public int inFlightWrites()
    {
        return writes.inFlightWrites() + replicaInbox.inFlightWrites();
    }

    /** Data connections currently served. */
    public int connectionCount()
    {
        return admission.size();
    }

    private void onPut(final Endpoint endpoint, final long correlationId, final PutRequestFlyweight put)
    {
        final int valueLength = put.valueLength();
        if (!checkKey(endpoint, correlationId, put.keyLength()) ||
            !checkRoute(endpoint, correlationId, key.wrap(put.buffer(), put.keyIndex(), put.keyLength())))
        {
            return;
        }
        if (valueLength > limits.maxValueBytes())
        {
            counters.increment(ServerCounter.LIMIT_REJECTIONS);
            responses.answerError(endpoint, correlationId, Status.VALUE_TOO_LARGE,
                "value of " + valueLength + " bytes exceeds the limit of " + limits.maxValueBytes());
            return;
        }
        counters.increment(ServerCounter.PUTS);
        if (store.diskGuard().full())
        {
            // A full disk: refused before anything is written, so the space freed by DELETEs is not taken again.
            counters.increment(ServerCounter.DISK_FULL_REFUSALS);
            responses.answerError(endpoint, correlationId, Status.DISK_FULL, DiskFullGuard.REFUSAL);
            return;
        }
        // The record as RocksDB, the replicas and the pool take it: this node's next data version, no expiry.
        ValueRecord.writeHeader(record, 0, versions.next(), 0);
        record.putBytes(ValueRecord.HEADER_LENGTH, put.buffer(), put.valueIndex(), valueLength);
        writes.put(endpoint, correlationId, put, key, record, 0, ValueRecord.HEADER_LENGTH + valueLength);
    }

    private void onDelete(final Endpoint endpoint, final long correlationId, final KeyRequestFlyweight request)
    {
        if (!checkKey(endpoint, correlationId, request.keyLength()) || !checkRoute(endpoint, correlationId,
            hashKey(request)))
        {
            return;
        }
        counters.increment(ServerCounter.DELETES);
        writes.delete(endpoint, correlationId, request, key);
    }

    /**
     * A write that decides from the key's record (conditions, counters, expiry; {@link RecordWrites}), or a TTL read.
     * The same checks as a PUT's first: key, route, value limit, full disk (a conditional DELETE is served).
     */
    private void onRecordWrite(final Endpoint endpoint, final long correlationId,
        final RecordWriteRequestFlyweight write)
    {
        if (!checkKey(endpoint, correlationId, write.keyLength()) ||
            !checkRoute(endpoint, correlationId, key.wrap(write.buffer(), write.keyIndex(), write.keyLength())))
        {
            return;
        }
        final int op = write.op();
        if (op == RecordWriteRequestFlyweight.OP_TTL)
        {
            recordWrites.answerTtl(writes, endpoint, correlationId, key);
            return;
        }
        if (write.valueLength() > limits.maxValueBytes())
        {
            counters.increment(ServerCounter.LIMIT_REJECTIONS);
            responses.answerError(endpoint, correlationId, Status.VALUE_TOO_LARGE,
                "value of " + write.valueLength() + " bytes exceeds the limit of " + limits.maxValueBytes());
            return;
        }
        counters.increment(ServerCounter.RECORD_WRITES);
        if (op != RecordWriteRequestFlyweight.OP_DELETE_IF_VERSION && store.diskGuard().full())
        {
            counters.increment(ServerCounter.DISK_FULL_REFUSALS);
            responses.answerError(endpoint, correlationId, Status.DISK_FULL, DiskFullGuard.REFUSAL);
            return;
        }
        recordWrites.apply(writes, endpoint, correlationId, write, key);
    }

    /**
     * An atomic multi-key write: every key in one hash slot (else CROSSSLOT, nothing written), routed by that slot,
     * each key and value within the limits and the whole within one largest PUT's key and value (so its REPLICATE
     * fits a peer's message); then each PUT's record built (this node's next data versions, no expiry) and the batch
     * handed to the write path as one write.
     */
    private void onBatchWrite(final Endpoint endpoint, final long correlationId,
        final BatchWriteRequestFlyweight request)
    {
        final int count = request.entryCount();
        int entry = request.entriesIndex();
        for (int i = 0; i < count; i++)
        {
            final int keyLength = BatchWriteRequestFlyweight.entryKeyLength(request.buffer(), entry);
            if (!checkKey(endpoint, correlationId, keyLength))
            {
                return;
            }
            final int valueLength = BatchWriteRequestFlyweight.entryValueLength(request.buffer(), entry);
            if (valueLength > limits.maxValueBytes())
            {
                counters.increment(ServerCounter.LIMIT_REJECTIONS);
                responses.answerError(endpoint, correlationId, Status.VALUE_TOO_LARGE, "batch entry " + i +
                    ": value of " + valueLength + " bytes exceeds the limit of " + limits.maxValueBytes());
                return;
            }
            entry = BatchWriteRequestFlyweight.nextEntry(request.buffer(), entry);
        }
        final int hashSlot = batch.wrap(request.buffer(), request.entriesIndex(), request.entriesLength(), count);
        final long recordLength = BatchWriteRequestFlyweight.recordEntriesLength(batch.puts(),
            request.entriesLength());
        if (recordLength > (long)limits.maxKeyBytes() + limits.maxValueBytes())
        {
            counters.increment(ServerCounter.LIMIT_REJECTIONS);
            responses.answerError(endpoint, correlationId, Status.VALUE_TOO_LARGE, "a batch of " + recordLength +
                " bytes (each PUT counted with its " + ValueRecord.HEADER_LENGTH + "-byte record header) exceeds " +
                "the limit of one key and one value, " + ((long)limits.maxKeyBytes() + limits.maxValueBytes()));
            return;
        }
        if (hashSlot < 0)
        {
            counters.increment(ServerCounter.BATCH_CROSSSLOT);
            responses.answerError(endpoint, correlationId, Status.CROSSSLOT, "the keys of an atomic batch hash to " +
                "different slots: give them one hash tag, {tag}");
            return;
        }
        if (!checkRoute(endpoint, correlationId, hashSlot))
        {
            return;
        }
        counters.increment(ServerCounter.BATCH_WRITES);
        if (batch.puts() > 0 && store.diskGuard().full())
        {
            counters.increment(ServerCounter.DISK_FULL_REFUSALS);
            responses.answerError(endpoint, correlationId, Status.DISK_FULL, DiskFullGuard.REFUSAL);
            return;
        }
        writes.batch(endpoint, correlationId, request, batch.build(batchRecords, batchRecordHeader));
    }

    /**
     * @param hashed whether {@link #key} holds this request's key already (hashed before the write path was asked
     *               whether it holds a write of it).
     */
    private void onGet(final Endpoint endpoint, final long correlationId, final KeyRequestFlyweight request,
        final boolean hashed)
    {
        if (!checkKey(endpoint, correlationId, request.keyLength()) ||
            !checkRoute(endpoint, correlationId, hashed ? key : hashKey(request)))
        {
            return;
        }
        counters.increment(ServerCounter.GETS_RPC);
        final int capacity = responses.valueCapacity();
        final int fromPool = index.copyValue(key, responses.valueBuffer(), ResponseFlyweight.VALUE_OFFSET, capacity);
        if (fromPool >= 0)
        {
            counters.increment(ServerCounter.GETS_RPC_FROM_POOL);
            if (ValueRecord.expired(index.copiedExpiryMillis(), clockMillis.getAsLong()))
            {
                // Lazily out of the pool (its space back; a one-sided miss is then right: expired is absent). The
                // record stays in RocksDB, absent to every read, until a write of the key replaces it.
                index.remove(key);
                counters.increment(ServerCounter.GETS_RPC_NOT_FOUND);
                responses.answer(endpoint, correlationId, Status.NOT_FOUND, 0, 0);
                return;
            }
            // The answer's version is the value's data version (getWithVersion).
            responses.sendValue(endpoint, correlationId, fromPool, index.copiedDataVersion());
            return;
        }
        if (fromPool == PoolIndex.NOT_FOUND && index.isComplete())
        {
            // A COMPLETE pool holds every key this node serves, as a one-sided reader already trusts: warm-up set it
            // only when every stored key fit, and anything that leaves a key out (eviction, a write with no room)
            // clears it first. Every write reaches the pool through the write path's outcome; one in flight (in
            // its batch, or on a primary until its backups acknowledged it) is not acknowledged yet, so a GET
            // ordered before it is right to miss it, as a one-sided GET does. RocksDB would only add cost.
            counters.increment(ServerCounter.GETS_RPC_COMPLETE_MISSES);
            counters.increment(ServerCounter.GETS_RPC_NOT_FOUND);
            responses.answer(endpoint, correlationId, Status.NOT_FOUND, 0, 0);
            return;
        }
        // A write RocksDB holds may still await its backups (and be lost with this node): then the answer waits
        // behind it, and what was read stays out of the pool (WritePath#holdsUnansweredWrites).
        final boolean held = writes.holdsUnansweredWrites();
        final int fromStore;
        try
        {
            // The record lands with its header just before the value area: the value is in place, no copy.
            fromStore = store.get(scratchKey(key), responses.recordView());
        }
        catch (final StoreException ex)
        {
            responses.answerStoreFailure(endpoint, correlationId, ex);
            return;
        }
        if (fromStore == RocksStore.NOT_FOUND)
        {
            answerAbsent(endpoint, correlationId, held);
            return;
        }
        final int valueLength = fromStore - ValueRecord.HEADER_LENGTH;
        if (valueLength > capacity)
        {
            counters.increment(ServerCounter.LIMIT_REJECTIONS);
            responses.answerError(endpoint, correlationId, Status.VALUE_TOO_LARGE,
                "stored value of " + valueLength + " bytes exceeds the message limit");
            return;
        }
        final MutableDirectBuffer read = responses.valueBuffer();
        try
        {
            ValueRecord.check(read, ResponseSender.RECORD_OFFSET, fromStore);
        }
        catch (final ProtocolException ex)
        {
            responses.answerError(endpoint, correlationId, Status.STORE_ERROR,
                "the stored record of the key is damaged: " + ex.getMessage());
            return;
        }
        if (ValueRecord.expired(ValueRecord.expiryMillis(read, ResponseSender.RECORD_OFFSET), clockMillis.getAsLong()))
        {
            answerAbsent(endpoint, correlationId, held); // expired: absent to every read, never promoted
            return;
        }
        counters.increment(ServerCounter.GETS_RPC_FROM_STORE);
        final long dataVersion = ValueRecord.dataVersion(read, ResponseSender.RECORD_OFFSET);
        if (held)
        {
            final byte[] value = new byte[valueLength];
            read.getBytes(ResponseFlyweight.VALUE_OFFSET, value);
            writes.answerRead(endpoint, correlationId, key, value, dataVersion);
            return;
        }
        if (valueLength <= limits.maxValueBytes() &&
            index.putRecord(key, read, ResponseSender.RECORD_OFFSET, fromStore, true) == PoolIndex.STORED)
        {
            counters.increment(ServerCounter.PROMOTIONS);
        }
        responses.sendValue(endpoint, correlationId, valueLength, dataVersion);
    }

    /** NOT_FOUND for a GET that read RocksDB: at once, or behind the writes before it when {@code held}. */
    private void answerAbsent(final Endpoint endpoint, final long correlationId, final boolean held)
    {
        if (held)
        {
            writes.answerRead(endpoint, correlationId, key, null, 0);
            return;
        }
        counters.increment(ServerCounter.GETS_RPC_NOT_FOUND);
        responses.answer(endpoint, correlationId, Status.NOT_FOUND, 0, 0);
    }

    /** A page of a slot range from a snapshot (backup); the answer's version names the snapshot. */
    private void onScan(final Endpoint endpoint, final long correlationId, final ScanRequestFlyweight request)
    {
        try
        {
            if (!scans.page(request, responses.valueBuffer(), ResponseFlyweight.VALUE_OFFSET,
                responses.valueCapacity(), scanResult))
            {
                counters.increment(ServerCounter.BUSY);
                responses.answerError(endpoint, correlationId, Status.BUSY, "too many scans open");
                return;
            }
        }
        catch (final IllegalArgumentException ex)
        {
            responses.answerError(endpoint, correlationId, Status.NOT_FOUND, ex.getMessage());
            return;
        }
        catch (final StoreException ex)
        {
            responses.answerStoreFailure(endpoint, correlationId, ex);
            return;
        }
        responses.sendValue(endpoint, correlationId, (int)scanResult[1], scanResult[0]);
    }

    /**
     * A page of keys (a client's scan, range or prefix read): served from the request's first hash slot on, through
     * the run of hash slots this node serves (the page's resume point names the first one it does not, which the
     * client asks of its owner); WRONG_NODE when it does not serve the first.
     */
    private void onKeyScan(final Endpoint endpoint, final long correlationId, final KeyScanRequestFlyweight request)
    {
        final int firstSlot = request.firstSlot();
        if (!checkRoute(endpoint, correlationId, firstSlot))
        {
            return;
        }
        final SlotRouter routing = router;
        int localLast = firstSlot;
        while (localLast < request.lastSlot() && routing.isLocal(localLast + 1))
        {
            localLast++;
        }
        final int length;
        try
        {
            length = keyScans.answer(request, localLast, responses.valueBuffer(), ResponseFlyweight.VALUE_OFFSET,
                responses.valueCapacity());
        }
        catch (final StoreException ex)
        {
            responses.answerStoreFailure(endpoint, correlationId, ex);
            return;
        }
        responses.sendValue(endpoint, correlationId, length);
    }

    private void flushWrites()
    {
        writes.flush();
        replicaInbox.flush();
    }

    private void onStats(final Endpoint endpoint, final long correlationId)
    {
        counters.increment(ServerCounter.STATS_REQUESTS);
        responses.answerText(endpoint, correlationId, counters.render());
    }

    /** The key's length within the limits, else answered (MALFORMED or KEY_TOO_LARGE) and false. */
    private boolean checkKey(final Endpoint endpoint, final long correlationId, final int keyLength)
    {
        if (keyLength == 0)
        {
            counters.increment(ServerCounter.MALFORMED_REQUESTS);
            responses.answerError(endpoint, correlationId, Status.MALFORMED, "empty key");
            return false;
        }
        if (keyLength > limits.maxKeyBytes())
        {
            counters.increment(ServerCounter.LIMIT_REJECTIONS);
            responses.answerError(endpoint, correlationId, Status.KEY_TOO_LARGE,
                "key of " + keyLength + " bytes exceeds the limit of " + limits.maxKeyBytes());
            return false;
        }
        return true;
    }

    private boolean validKeyLength(final int keyLength)
    {
        return keyLength > 0 && keyLength <= limits.maxKeyBytes();
    }

    /** {@link #key} := the request's key, hashed (once per request). */
    private HashedKey hashKey(final KeyRequestFlyweight request)
    {
        return key.wrap(request.buffer(), request.keyIndex(), request.keyLength());
    }

    /**
     * Whether this node serves {@code hashed}'s hash slot now (its primary, holding the node lease); else answered
     * WRONG_NODE and false.
     */
    /** Whether this node is now surely the primary of {@code hashSlot} (routing and, in a cluster, the node lease). */
    private boolean primaryOf(final int hashSlot)
    {
        final ClusterView lease = leaseHolder;
        return router.isLocal(hashSlot) && (lease == null || lease.holdsLease(leaseClock.nanoTime()));
    }

    /** One step of the expiry sweep now, whether due or not (tests). */
    int sweepExpired()
    {
        return sweep.step(writes, this::primaryOf);
    }

    private boolean checkRoute(final Endpoint endpoint, final long correlationId, final HashedKey hashed)
    {
        return checkRoute(endpoint, correlationId, hashed.hashSlot());
    }

    /** {@link #checkRoute(Endpoint, long, HashedKey)} of a hash slot. */
    private boolean checkRoute(final Endpoint endpoint, final long correlationId, final int hashSlot)
    {
        final SlotRouter routing = router;
        if (!routing.isLocal(hashSlot))
        {
            counters.increment(ServerCounter.WRONG_NODE);
            responses.answerWrongNode(endpoint, correlationId, routing.ownerAddress(hashSlot));
            return false;
        }
        final ClusterView lease = leaseHolder;
        if (lease != null && !lease.holdsLease(leaseClock.nanoTime()))
        {
            // Not surely primary any more (or not yet): a new primary may be taking writes. Retry elsewhere.
            counters.increment(ServerCounter.WRONG_NODE);
            responses.answerWrongNode(endpoint, correlationId, routing.selfAddress());
            return false;
        }
        return true;
    }

    /** The store key (slot prefix + key) in the direct scratch buffer. */
    private ByteBuffer scratchKey(final HashedKey hashed)
    {
        final int storeKeyLength = StoreKeys.encode(hashed, keyScratchBuffer, 0);
        keyScratch.limit(storeKeyLength).position(0);
        return keyScratch;
    }

    /** Request thread, at shutdown: free the write path; writes still in it were never acknowledged. */
    public void close()
    {
        windows.close(); // before the pool region: a device refuses to deregister memory windows are bound over
        scans.close();
        writes.close();
        replicaInbox.close();
    }
}
