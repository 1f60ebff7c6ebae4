package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvError;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.layout.IndexEntry;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.KeyScanRequestFlyweight;
import io.rdmakv.protocol.wire.MessageDecoder;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.locks.LockSupport;

/**
 * Two-sided requests (GET, PUT, DELETE, STATS): encodes a request with the protocol's flyweights, sends it with a
 * fresh correlation id, and matches the RESPONSE back to its {@link RequestSlot} on the progress thread. An OK PUT's
 * answer says where the value now lives, which goes into the node's {@link LocationCache}; a DELETE drops the key's.
 *
 * <p>Back-pressure from the transport is never a failure: a caller's thread waits (bounded by the request's
 * deadline) while the worker progresses; the progress thread hands the send to the {@link ClientConductor} instead.
 * An answer, a timeout and a failed send race for a waiting request slot through {@link RequestSlots#claim}.
 */
final class RpcProtocol
{
    private static final Logger LOG = LoggerFactory.getLogger(RpcProtocol.class);


    private static final int SENT = 0;
    private static final int AGAIN = 1;
    private static final int FINISHED = 2;

    private final ClientCounters counters;
    private final RequestSlots requestSlots;
    private final DeferredPosts deferred;
    private final Redirector redirector;

    /** Send copies the bytes before it returns, so one encode buffer per sending thread is enough. */
    private final ThreadLocal<Encoder> encoders = ThreadLocal.withInitial(Encoder::new);
    /** Progress thread only. */
    private final MessageDecoder decoder = new MessageDecoder();

    /**
     * @param requestSlots      the requests this protocol sends and answers.
     * @param deferred   where a back-pressured send waits for the conductor.
     * @param redirector follows a WRONG_NODE answer.
     */
    RpcProtocol(final ClientCounters counters, final RequestSlots requestSlots, final DeferredPosts deferred,
        final Redirector redirector)
    {
        this.counters = counters;
        this.requestSlots = requestSlots;
        this.deferred = deferred;
        this.redirector = redirector;
    }

    /**
     * Send from a caller's (or the control) thread, waiting while back-pressured, at most until the deadline; an
     * async request never waits: the conductor retries its send.
     */
    void start(final RequestSlot requestSlot)
    {
        counters.increment(ClientCounter.RPCS);
        if (requestSlot.call != null)
        {
            resume(requestSlot);
            return;
        }
        while (trySend(requestSlot) == AGAIN)
        {
            counters.increment(ClientCounter.BACK_PRESSURED_POSTS);
            if (System.nanoTime() - requestSlot.deadlineNanos > 0)
            {
                requestSlot.fail(KvError.TIMED_OUT, requestSlot.describe() + " could not be sent before its deadline " +
                    "(transport back-pressured)");
                requestSlots.complete(requestSlot);
                return;
            }
            LockSupport.parkNanos(1_000);
        }
    }

    /**
     * Send without waiting, from the thread that finished a one-sided GET's step (a GET falling back: the progress
     * thread, or a caller whose reads completed on return); a back-pressured send is retried by the conductor.
     */
    void startFromWorker(final RequestSlot requestSlot)
    {
        counters.increment(ClientCounter.RPCS);
        resume(requestSlot);
    }

    /** (Re)try a send, handing it to the conductor when back-pressured; never waits (any thread). */
    void resume(final RequestSlot requestSlot)
    {
        if (trySend(requestSlot) == AGAIN)
        {
            counters.increment(ClientCounter.BACK_PRESSURED_POSTS);
            deferred.defer(requestSlot, DeferredPosts.SEND);
        }
    }

    private int trySend(final RequestSlot requestSlot)
    {
        final Endpoint endpoint = requestSlot.session.endpoint();
        final Encoder encoder = encoders.get();
        final int length = encoder.encode(requestSlot, requestSlots.nextCorrelationId(requestSlot), requestSlots.writes());
        // Waiting before sending: on loopback the answer can arrive before send() returns.
        requestSlot.phase = RequestSlot.PHASE_AWAIT_RESPONSE;
        requestSlot.sentNanos = ReadLease.now();
        final long id = endpoint.send(encoder.buffer, 0, length, null);
        if (id >= 0)
        {
            return SENT;
        }
        if (!RequestSlots.claim(requestSlot, RequestSlot.PHASE_AWAIT_RESPONSE))
        {
            return FINISHED; // timed out meanwhile
        }
        final TransportStatus status = TransportStatus.fromSentinel(id);
        if (status == TransportStatus.BACK_PRESSURED)
        {
            return AGAIN;
        }
        if (status == TransportStatus.NOT_CONNECTED || status == TransportStatus.CLOSED ||
            status == TransportStatus.PEER_FAILED)
        {
            requestSlot.fail(KvError.CONNECTION_FAILED, requestSlot.describe() + " could not be sent to node " +
                requestSlot.session.info().nodeId() + " at " + requestSlot.session.info().dataAddress() + ": " +
                status.description());
        }
        else
        {
            requestSlot.fail(KvError.TRANSPORT_FAILED, requestSlot.describe() + " refused by the transport: " + status.description());
        }
        requestSlots.complete(requestSlot);
        return FINISHED;
    }

    /** A message from a node (progress thread): match it to its request and complete that. */
    void onMessage(final NodeSession session, final DirectBuffer buffer, final int offset, final int length)
    {
        onMessage(session, decoder, buffer, offset, length);
    }

    /**
     * Send the request slot's request on a caller lane and read answers from it on this thread until the request has
     * its answer, or left the lane (redirected, or timed out by the conductor), or its deadline passed (the conductor
     * then times it out). A lane that fails hands its request to the session's endpoint: sent again, it is applied at
     * most once (the write id), and then answered the shared way. The caller gives the lane back afterwards.
     */
    void callOnLane(final RequestSlot requestSlot, final CallerLanes.Handle lane)
    {
        counters.increment(ClientCounter.RPCS);
        counters.increment(ClientCounter.LANE_REQUESTS);
        final Encoder encoder = encoders.get();
        final int length = encoder.encode(requestSlot, requestSlots.nextCorrelationId(requestSlot), requestSlots.writes());
        requestSlot.phase = RequestSlot.PHASE_AWAIT_RESPONSE;
        requestSlot.sentNanos = ReadLease.now();
        try
        {
            lane.lane.send(encoder.buffer, 0, length, requestSlot.deadlineNanos - System.nanoTime());
            long remaining;
            // Until the deadline: the lane's read blocks in the kernel. A client that closes closes its lanes under
            // their callers, and an interrupt closes the lane (an interruptible channel): both end the wait at once.
            while (requestSlot.phase == RequestSlot.PHASE_AWAIT_RESPONSE &&
                (remaining = requestSlot.deadlineNanos - System.nanoTime()) > 0 && !Thread.currentThread().isInterrupted())
            {
                lane.lane.receive(lane.answers, remaining);
            }
        }
        catch (final TransportException ex)
        {
            if (RequestSlots.claim(requestSlot, RequestSlot.PHASE_AWAIT_RESPONSE))
            {
                LOG.debug("caller lane to node {} failed ({}); {} goes the shared way", requestSlot.session.info().nodeId(),
                    ex.getMessage(), requestSlot.describe());
                resume(requestSlot);
            }
        }
    }

    /** A message from a node, decoded with {@code decoder} (the progress thread's, or a lane's). */
    void onMessage(final NodeSession session, final MessageDecoder decoder, final DirectBuffer buffer,
        final int offset, final int length)
    {
        final MessageType type;
        try
        {
            type = decoder.decode(buffer, offset, length);
        }
        catch (final ProtocolException ex)
        {
            final RequestSlot requestSlot = requestSlots.awaiting(decoder.correlationId());
            LOG.warn("undecodable message from node {}: {}", session.info().nodeId(), ex.getMessage());
            if (requestSlot != null && RequestSlots.claim(requestSlot, RequestSlot.PHASE_AWAIT_RESPONSE))
            {
                requestSlot.fail(KvError.PROTOCOL_ERROR, "node " + session.info().nodeId() + " answered " +
                    requestSlot.describe() + " with an undecodable message: " + ex.getMessage());
                requestSlots.complete(requestSlot);
            }
            return;
        }
        if (type != MessageType.RESPONSE)
        {
            LOG.warn("unexpected {} from node {}; ignored", type, session.info().nodeId());
            return;
        }
        final ResponseFlyweight response = decoder.response();
        final RequestSlot requestSlot = requestSlots.awaiting(response.correlationId());
        if (requestSlot == null || !RequestSlots.claim(requestSlot, RequestSlot.PHASE_AWAIT_RESPONSE))
        {
            counters.increment(ClientCounter.STALE_RESPONSES);
            return;
        }
        session.readLease().granted(requestSlot.sentNanos, response.readLeaseMillis());
        final Status status = response.status();
        if (status == null)
        {
            requestSlot.fail(KvError.PROTOCOL_ERROR, "node " + session.info().nodeId() + " answered with unknown status " +
                response.statusCode());
        }
        else if (requestSlot.type == RequestSlot.TYPE_RECORD && status != Status.WRONG_NODE)
        {
            // Every answer of a record write is its result: OK, a refused condition with the present version, ...
            requestSlot.resultVersion = response.version();
            requestSlot.resultWritten = status == Status.OK ? response.writtenVersion() : 0;
            if (requestSlot.recordOp == RecordWriteRequestFlyweight.OP_TTL)
            {
                // a read: the value did not move
            }
            else if (status == Status.OK)
            {
                // A write the node answered as a PUT (its location, when placed) or a DELETE (none): as a plain one.
                learnOwnWrite(session, requestSlot, response);
            }
            else if (status != Status.CONDITION_FAILED)
            {
                requestSlot.session.locationCache().forget(requestSlot.hashedKey.hash());
            }
            requestSlot.succeed(status, response.value(), status == Status.OK ? null : response.text());
        }
        else if (status == Status.OK)
        {
            if (requestSlot.type == RequestSlot.TYPE_GET || requestSlot.type == RequestSlot.TYPE_KEY_SCAN)
            {
                requestSlot.resultVersion = response.version(); // the value's data version
                requestSlot.succeedWithValue(buffer, response.valueIndex(), response.valueLength());
            }
            else
            {
                if (requestSlot.type == RequestSlot.TYPE_PUT)
                {
                    learnOwnWrite(session, requestSlot, response);
                }
                else if (requestSlot.type == RequestSlot.TYPE_DELETE)
                {
                    session.locationCache().forget(requestSlot.hashedKey.hash());
                }
                requestSlot.succeed(status, null, requestSlot.type == RequestSlot.TYPE_STATS ? response.text() : null);
            }
        }
        else if (status == Status.WRONG_NODE)
        {
            redirector.redirect(requestSlot, response.text());
            return;
        }
        else
        {
            requestSlot.succeed(status, null, response.valueLength() > 0 ? response.text() : null);
        }
        requestSlots.complete(requestSlot);
    }

    /**
     * An OK PUT of this client: remember where the node placed the value (the answer's location and version), so
     * reading one's own writes takes one read; when the node did not place it in the pool, forget the old place.
     */
    private static void learnOwnWrite(
        final NodeSession session, final RequestSlot requestSlot, final ResponseFlyweight response)
    {
        final LocationCache cache = session.locationCache();
        final long location = response.location();
        if (location == IndexEntry.EMPTY || !cache.remember(requestSlot.hashedKey.hash(), location, response.version()))
        {
            cache.forget(requestSlot.hashedKey.hash());
        }
    }

    /** Encodes requests into a growable buffer of its thread. */
    private static final class Encoder
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(4096);
        final KeyRequestFlyweight keyRequest = new KeyRequestFlyweight();
        final PutRequestFlyweight putRequest = new PutRequestFlyweight();
        final RecordWriteRequestFlyweight recordRequest = new RecordWriteRequestFlyweight();
        final BatchWriteRequestFlyweight batchRequest = new BatchWriteRequestFlyweight();
        final MessageHeaderFlyweight header = new MessageHeaderFlyweight();
        final KeyScanRequestFlyweight keyScanRequest = new KeyScanRequestFlyweight();

        int encode(final RequestSlot requestSlot, final long correlationId, final WriteSequencer writes)
        {
            switch (requestSlot.type)
            {
                case RequestSlot.TYPE_GET:
                case RequestSlot.TYPE_DELETE:
                {
                    final int length = KeyRequestFlyweight.KEY_OFFSET + requestSlot.keyLength +
                        MessageHeaderFlyweight.WRITE_ID_LENGTH;
                    buffer.checkLimit(length);
                    keyRequest.wrap(buffer, 0, length);
                    keyRequest.header(requestSlot.type == RequestSlot.TYPE_GET ?
                        MessageType.GET_REQUEST : MessageType.DELETE_REQUEST, correlationId);
                    keyRequest.key(requestSlot.key, 0, requestSlot.keyLength);
                    if (requestSlot.type == RequestSlot.TYPE_DELETE)
                    {
                        keyRequest.appendWriteId(writes.writerId(), writes.number(requestSlot), requestSlot.writeCompletedBelow);
                    }
                    return keyRequest.encodedLength();
                }
                case RequestSlot.TYPE_PUT:
                {
                    final int length = PutRequestFlyweight.KEY_OFFSET + requestSlot.keyLength + requestSlot.valueLength +
                        MessageHeaderFlyweight.WRITE_ID_LENGTH;
                    buffer.checkLimit(length);
                    putRequest.wrap(buffer, 0, length);
                    putRequest.header(MessageType.PUT_REQUEST, correlationId);
                    putRequest.keyAndValue(requestSlot.key, 0, requestSlot.keyLength, requestSlot.value, 0, requestSlot.valueLength);
                    putRequest.appendWriteId(writes.writerId(), writes.number(requestSlot), requestSlot.writeCompletedBelow);
                    return putRequest.encodedLength();
                }
                case RequestSlot.TYPE_KEY_SCAN:
                {
                    final int length = MessageHeaderFlyweight.HEADER_LENGTH + requestSlot.keyLength;
                    buffer.checkLimit(length);
                    keyScanRequest.wrap(buffer, 0, length);
                    keyScanRequest.request(correlationId, requestSlot.key, 0, requestSlot.keyLength);
                    return keyScanRequest.encodedLength();
                }
                case RequestSlot.TYPE_RECORD:
                {
                    final int length = RecordWriteRequestFlyweight.KEY_OFFSET + requestSlot.keyLength +
                        requestSlot.valueLength + MessageHeaderFlyweight.WRITE_ID_LENGTH;
                    buffer.checkLimit(length);
                    recordRequest.wrap(buffer, 0, length);
                    recordRequest.header(MessageType.RECORD_WRITE_REQUEST, correlationId);
                    recordRequest.write(requestSlot.recordOp, requestSlot.recordExpected, requestSlot.recordArgument,
                        requestSlot.key, requestSlot.keyLength, requestSlot.value, requestSlot.valueLength);
                    if (requestSlot.recordOp != RecordWriteRequestFlyweight.OP_TTL)
                    {
                        recordRequest.appendWriteId(writes.writerId(), writes.number(requestSlot),
                            requestSlot.writeCompletedBelow);
                    }
                    return recordRequest.encodedLength();
                }
                case RequestSlot.TYPE_BATCH:
                {
                    final int length = BatchWriteRequestFlyweight.ENTRIES_OFFSET + requestSlot.valueLength +
                        MessageHeaderFlyweight.WRITE_ID_LENGTH;
                    buffer.checkLimit(length);
                    batchRequest.wrap(buffer, 0, length);
                    batchRequest.header(MessageType.BATCH_WRITE_REQUEST, correlationId);
                    batchRequest.write((int)requestSlot.recordArgument, requestSlot.value, 0, requestSlot.valueLength);
                    batchRequest.appendWriteId(writes.writerId(), writes.number(requestSlot),
                        requestSlot.writeCompletedBelow);
                    return batchRequest.encodedLength();
                }
                default:
                {
                    buffer.checkLimit(MessageHeaderFlyweight.HEADER_LENGTH);
                    header.wrap(buffer, 0, MessageHeaderFlyweight.HEADER_LENGTH);
                    header.header(MessageType.STATS_REQUEST, correlationId);
                    return header.encodedLength();
                }
            }
        }
    }
}
