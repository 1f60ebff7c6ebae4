package io.rdmakv.server.handler;

import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.MessageDecoder;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ReadLeaseGrant;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.server.session.SessionTickets;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreException;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.TransportStatus;
import org.agrona.DirectBuffer;
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
 *   DELETE : limits -> route -> exists? (pool hit, else RocksDB lookup) -> RocksDB -> pool (slot := 0, retire extent)
 *            -> RESPONSE OK, or NOT_FOUND (nothing written) when the key did not exist
 *   GET    : limits -> route -> pool ? value : RocksDB ? (promote into pool) value : NOT_FOUND
 *   STATS  : counters as key=value text
 *   anything malformed -> RESPONSE with the error status (MALFORMED, UNSUPPORTED_VERSION, ...); the connection stays
 * </pre>
 *
 * <p>Admission: nothing is served on a data endpoint before it attached with the ticket of a control-plane WELCOME
 * ({@link SessionTickets}), so the credential checked by the handshake also guards the data port. An endpoint that
 * does not attach within the tickets' time to live is closed.
 *
 * <p>Durability: in DEFAULT mode RocksDB is written on this thread (WAL write without fsync): the PUTs of one progress
 * step as one batch ({@link PutBatch}), answered once it is written; DELETEs inline from direct scratch buffers. In
 * FSYNC mode the write is copied (it must outlive the receive callback) and handed to the group committer
 * ({@link GroupCommitWrites}); the progress thread is not blocked, and {@link #doWork()} updates the pool and answers
 * once the write is durable: the pool and the answer always follow the durable write.
 *
 * <p>This class owns decoding, admission, the request checks (key, value, slot routing) and the order of the steps
 * above; answers are encoded and sent by {@link ResponseSender}.
 */
public final class RequestHandler implements EndpointHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(RequestHandler.class);
    private static final long ADMISSION_CHECK_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final RocksStore store;
    private final PoolIndex index;
    private final ServerCounters counters;
    private final Limits limits;
    private final SlotRouter router;
    private final SessionTickets tickets;
    private final EndpointAdmission admission;

    private final MessageDecoder decoder = new MessageDecoder();
    private final ResponseSender responses;
    private final ByteBuffer keyScratch;
    private final UnsafeBuffer keyScratchBuffer;
    /** DEFAULT durability: the PUTs of one progress step, written as one batch (null under FSYNC). */
    private final PutBatch puts;
    /** FSYNC durability: writes waiting for group commit (null under DEFAULT). */
    private final GroupCommitWrites synced;

    private long nextAdmissionCheckNanos;
    /** Wakes the request thread after a hand-off from another thread (the group committer). */
    private volatile Runnable wakeUp = () -> { };

    /**
     * @param limits what requests may carry and how many connections are served.
     * @param router  which cluster slots this node serves.
     * @param tickets the session tickets the control plane issues; an endpoint is served after redeeming one.
     */
    public RequestHandler(
        final RocksStore store, final PoolIndex index, final ServerCounters counters, final Limits limits,
        final SlotRouter router, final SessionTickets tickets)
    {
        this.store = store;
        this.index = index;
        this.counters = counters;
        this.limits = limits;
        this.router = router;
        this.tickets = tickets;
        this.admission = new EndpointAdmission(tickets.timeToLive().toNanos());
        this.responses = new ResponseSender(counters, limits.maxResponseBytes());
        this.keyScratch = ByteBuffer.allocateDirect(limits.maxKeyBytes());
        this.keyScratchBuffer = new UnsafeBuffer(keyScratch);
        this.puts = store.writesInline() ? new PutBatch(store, Math.max(1 << 20,
            limits.maxKeyBytes() + limits.maxValueBytes()), new PutCommitter(), () -> wakeUp.run()) : null;
        this.synced = store.writesInline() ? null :
            new GroupCommitWrites(store, index, counters, limits.maxValueBytes(), responses, () -> wakeUp.run());
    }

    @Override
    public void onConnected(final Endpoint endpoint)
    {
        if (admission.size() >= limits.maxConnections())
        {
            counters.increment(ServerCounter.CONNECTIONS_REFUSED);
            LOG.warn("refusing data connection from {}: limit of {} connections reached", endpoint.remoteAddress(),
                limits.maxConnections());
            endpoint.close();
            return;
        }
        admission.onConnected(endpoint, System.nanoTime());
        counters.increment(ServerCounter.CONNECTIONS);
        counters.increment(ServerCounter.CONNECTIONS_TOTAL);
    }

    @Override
    public void onDisconnected(final Endpoint endpoint, final TransportStatus status, final String detail)
    {
        if (admission.onDisconnected(endpoint))
        {
            counters.decrement(ServerCounter.CONNECTIONS);
        }
    }

    @Override
    public void onMessage(final Endpoint endpoint, final DirectBuffer buffer, final int offset, final int length)
    {
        if (!admission.isAttached(endpoint))
        {
            onFirstMessage(endpoint, buffer, offset, length);
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
            commitPuts(); // answered in arrival order
            responses.answerError(endpoint, decoder.correlationId(), status, ex.getMessage());
            return;
        }
        if (type != MessageType.PUT_REQUEST)
        {
            commitPuts(); // a GET, DELETE or STATS sees every PUT that arrived before it
        }
        final long correlationId = decoder.correlationId();
        switch (type)
        {
            case PUT_REQUEST -> onPut(endpoint, correlationId, decoder.putRequest());
            case DELETE_REQUEST -> onDelete(endpoint, correlationId, decoder.keyRequest());
            case GET_REQUEST -> onGet(endpoint, correlationId, decoder.keyRequest());
            case STATS_REQUEST -> onStats(endpoint, correlationId);
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
     * Drain durable-write completions (FSYNC): update the pool and answer; close endpoints that did not attach in
     * time. Returns the work done.
     */
    public int doWork()
    {
        int work = commitPuts();
        if (synced != null)
        {
            work += synced.drain();
        }
        if (admission.anyWaiting())
        {
            final long now = System.nanoTime();
            if (now - nextAdmissionCheckNanos >= 0)
            {
                nextAdmissionCheckNanos = now + ADMISSION_CHECK_INTERVAL_NANOS;
                for (final Endpoint late : admission.overdue(now))
                {
                    LOG.info("closing data connection from {}: no ATTACH within {}", late.remoteAddress(),
                        tickets.timeToLive());
                    counters.increment(ServerCounter.ATTACH_REFUSALS);
                    counters.decrement(ServerCounter.CONNECTIONS);
                    late.close();
                    work++;
                }
            }
        }
        return work;
    }

    /**
     * The read lease every answer grants from now on (unbounded by default: a node with no node lease). Set before
     * the node serves, or from the request thread.
     */
    public void readLeaseGrant(final ReadLeaseGrant grant)
    {
        responses.readLease(grant);
    }

    /** Wakes the request thread when a durable write completes (else it waits for the next timed duty cycle). */
    public void wakeUpWith(final Runnable wakeUp)
    {
        this.wakeUp = wakeUp;
    }

    /** Writes handed to group commit and not answered yet. */
    public int inFlightWrites()
    {
        return synced == null ? 0 : synced.inFlightWrites();
    }

    /** Data connections currently served. */
    public int connectionCount()
    {
        return admission.size();
    }

    /**
     * The first message on an endpoint must be an ATTACH with a ticket that redeems. Whatever else arrives (a request,
     * garbage, a wrong, used or expired ticket) gets UNAUTHENTICATED, the same answer for all so nothing is learned,
     * and the endpoint is closed. Once per connection: may allocate.
     */
    private void onFirstMessage(final Endpoint endpoint, final DirectBuffer buffer, final int offset, final int length)
    {
        if (!admission.isWaiting(endpoint))
        {
            return; // refused and closed already (or never admitted): what it pipelined behind gets nothing
        }
        MessageType type = null;
        try
        {
            type = decoder.decode(buffer, offset, length);
        }
        catch (final ProtocolException ex)
        {
            // Not even a well-formed ATTACH: refused below.
        }
        if (type == MessageType.ATTACH_REQUEST)
        {
            final AttachRequestFlyweight attach = decoder.attachRequest();
            if (tickets.redeem(attach.ticketHigh(), attach.ticketLow()) && admission.attach(endpoint))
            {
                counters.increment(ServerCounter.ATTACHES);
                responses.answer(endpoint, decoder.correlationId(), Status.OK, 0, 0);
                return;
            }
        }
        counters.increment(ServerCounter.ATTACH_REFUSALS);
        LOG.info("refusing data connection from {}: {}", endpoint.remoteAddress(),
            type == MessageType.ATTACH_REQUEST ? "session ticket unknown, used or expired" :
            "first message is not an ATTACH");
        responses.answerError(endpoint, decoder.correlationId(), Status.UNAUTHENTICATED,
            "attach with a valid session ticket from the control-plane handshake first");
        if (admission.onDisconnected(endpoint))
        {
            counters.decrement(ServerCounter.CONNECTIONS);
        }
        endpoint.close();
    }

    private void onPut(final Endpoint endpoint, final long correlationId, final PutRequestFlyweight put)
    {
        final int keyLength = put.keyLength();
        final int valueLength = put.valueLength();
        if (!checkKey(endpoint, correlationId, put.buffer(), put.keyIndex(), keyLength))
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
        if (puts != null)
        {
            puts.add(endpoint, correlationId, put.buffer(), put.keyIndex(), keyLength, put.valueIndex(), valueLength);
            return;
        }
        final byte[] key = new byte[keyLength];
        final byte[] value = new byte[valueLength];
        put.buffer().getBytes(put.keyIndex(), key);
        put.buffer().getBytes(put.valueIndex(), value);
        synced.submit(endpoint, correlationId, key, value);
    }

    private void onDelete(final Endpoint endpoint, final long correlationId, final KeyRequestFlyweight request)
    {
        final int keyLength = request.keyLength();
        if (!checkKey(endpoint, correlationId, request.buffer(), request.keyIndex(), keyLength))
        {
            return;
        }
        counters.increment(ServerCounter.DELETES);
        if (store.writesInline())
        {
            // Inline writes keep the pool a subset of RocksDB, so a pool hit proves existence without a lookup.
            final boolean existed;
            try
            {
                existed = index.contains(request.buffer(), request.keyIndex(), keyLength) ||
                    store.contains(scratchKey(request.buffer(), request.keyIndex(), keyLength));
                if (existed)
                {
                    store.delete(scratchKey(request.buffer(), request.keyIndex(), keyLength));
                }
            }
            catch (final StoreException ex)
            {
                responses.answerStoreFailure(endpoint, correlationId, ex);
                return;
            }
            if (!existed)
            {
                counters.increment(ServerCounter.DELETES_NOT_FOUND);
                responses.answer(endpoint, correlationId, Status.NOT_FOUND, 0, 0);
                return;
            }
            index.remove(request.buffer(), request.keyIndex(), keyLength);
            responses.answer(endpoint, correlationId, Status.OK, 0, 0);
            return;
        }
        // FSYNC: the pool lags the writes waiting for group commit, so the committer decides existence in order.
        final byte[] key = new byte[keyLength];
        request.buffer().getBytes(request.keyIndex(), key);
        synced.submit(endpoint, correlationId, key, null);
    }

    private void onGet(final Endpoint endpoint, final long correlationId, final KeyRequestFlyweight request)
    {
        final int keyLength = request.keyLength();
        final DirectBuffer buffer = request.buffer();
        if (!checkKey(endpoint, correlationId, buffer, request.keyIndex(), keyLength))
        {
            return;
        }
        counters.increment(ServerCounter.GETS_RPC);
        final int capacity = responses.valueCapacity();
        final int fromPool = index.copyValue(buffer, request.keyIndex(), keyLength,
            responses.valueBuffer(), ResponseFlyweight.VALUE_OFFSET, capacity);
        if (fromPool >= 0)
        {
            counters.increment(ServerCounter.GETS_RPC_FROM_POOL);
            responses.sendValue(endpoint, correlationId, fromPool);
            return;
        }
        final int fromStore;
        try
        {
            fromStore = store.get(scratchKey(buffer, request.keyIndex(), keyLength), responses.valueView());
        }
        catch (final StoreException ex)
        {
            responses.answerStoreFailure(endpoint, correlationId, ex);
            return;
        }
        if (fromStore == RocksStore.NOT_FOUND)
        {
            counters.increment(ServerCounter.GETS_RPC_NOT_FOUND);
            responses.answer(endpoint, correlationId, Status.NOT_FOUND, 0, 0);
            return;
        }
        if (fromStore > capacity)
        {
            counters.increment(ServerCounter.LIMIT_REJECTIONS);
            responses.answerError(endpoint, correlationId, Status.VALUE_TOO_LARGE,
                "stored value of " + fromStore + " bytes exceeds the message limit");
            return;
        }
        counters.increment(ServerCounter.GETS_RPC_FROM_STORE);
        if (fromStore <= limits.maxValueBytes() &&
            index.put(buffer, request.keyIndex(), keyLength, responses.valueBuffer(), ResponseFlyweight.VALUE_OFFSET,
                fromStore) == PoolIndex.STORED)
        {
            counters.increment(ServerCounter.PROMOTIONS);
        }
        responses.sendValue(endpoint, correlationId, fromStore);
    }

    private void onStats(final Endpoint endpoint, final long correlationId)
    {
        counters.increment(ServerCounter.STATS_REQUESTS);
        responses.answerText(endpoint, correlationId, counters.render());
    }

    private long placeInPool(
        final DirectBuffer buffer, final int keyIndex, final int keyLength, final int valueIndex, final int valueLength)
    {
        if (index.put(buffer, keyIndex, keyLength, buffer, valueIndex, valueLength) == PoolIndex.STORED)
        {
            return index.lastVersion();
        }
        counters.increment(ServerCounter.NOT_CACHED);
        return 0;
    }

    private boolean checkKey(
        final Endpoint endpoint, final long correlationId, final DirectBuffer buffer, final int keyIndex,
        final int keyLength)
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
        final int slot = KeyHash.clusterSlot(KeyHash.hash(buffer, keyIndex, keyLength));
        if (!router.isLocal(slot))
        {
            counters.increment(ServerCounter.WRONG_NODE);
            responses.answerWrongNode(endpoint, correlationId, router.ownerAddress(slot));
            return false;
        }
        return true;
    }

    private ByteBuffer scratchKey(final DirectBuffer buffer, final int index, final int length)
    {
        keyScratchBuffer.putBytes(0, buffer, index, length);
        keyScratch.limit(length).position(0);
        return keyScratch;
    }

    private int commitPuts()
    {
        return puts == null ? 0 : puts.commit();
    }

    /** Request thread, at shutdown: free the batch; PUTs still in it were never acknowledged. */
    public void close()
    {
        if (puts != null)
        {
            puts.close();
        }
    }

    /** Pool and answer for each PUT of a durable batch. */
    private final class PutCommitter implements PutBatch.Committer
    {
        @Override
        public void committed(final Endpoint endpoint, final long correlationId, final DirectBuffer staging,
            final int keyIndex, final int keyLength, final int valueIndex, final int valueLength)
        {
            final long version = placeInPool(staging, keyIndex, keyLength, valueIndex, valueLength);
            responses.answer(endpoint, correlationId, Status.OK, version, version != 0 ? index.lastSlot() : 0);
        }

        @Override
        public void failed(final Endpoint endpoint, final long correlationId, final StoreException failure)
        {
            responses.answerStoreFailure(endpoint, correlationId, failure);
        }
    }
}
