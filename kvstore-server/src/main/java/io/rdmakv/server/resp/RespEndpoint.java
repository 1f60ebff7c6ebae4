package io.rdmakv.server.resp;

import io.netty.channel.Channel;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.KeyScanRequestFlyweight;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A RESP connection as the request handler sees it: a data endpoint that attached with a session ticket, sends it
 * binary GET, PUT and DELETE requests and is answered with binary RESPONSEs. So a RESP command takes exactly the path
 * a native client's request takes (limits, routing and lease, the {@code WritePath}, the pool, counters, the
 * connection budget), and its answer comes when that path answers: after the WAL write, and after the backups'
 * acknowledgements in a cluster.
 *
 * <pre>
 *   RESP event loop: GET/SET/DEL ─► encode request (correlation id) ─► HandOff ─► request thread: RequestHandler
 *   request thread:  RESPONSE ─► send() here: decoded, queued ─► RESP event loop: RespConnection.answered(...)
 * </pre>
 * Requests are encoded on the connection's event loop only; {@link #send} runs on the request thread.
 */
final class RespEndpoint implements Endpoint
{
    /** The correlation id of the ATTACH; requests count from 1. */
    static final long ATTACH_ID = 0;

    private final Channel channel;
    private final EndpointHandler requestThread;
    private final Answers answers;
    private final ExpandableArrayBuffer message = new ExpandableArrayBuffer(256);
    private final KeyRequestFlyweight keyRequest = new KeyRequestFlyweight();
    private final PutRequestFlyweight putRequest = new PutRequestFlyweight();
    private final RecordWriteRequestFlyweight recordRequest = new RecordWriteRequestFlyweight();
    private final KeyScanRequestFlyweight keyScanRequest = new KeyScanRequestFlyweight();
    private final BatchWriteRequestFlyweight batchRequest = new BatchWriteRequestFlyweight();
    private final ResponseFlyweight response = new ResponseFlyweight();
    private final Queue<Answer> arrived = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private long nextCorrelationId = ATTACH_ID + 1;
    /** Answers given on the connection's own loop (event loop only), and whether a task will deliver them. */
    private final ArrayDeque<Answer> local = new ArrayDeque<>();
    private final Runnable drainLocal = this::drainLocal;
    private boolean localScheduled;
    private boolean reading;

    /** Where answers go, on the connection's event loop. */
    interface Answers
    {
        /**
         * The request {@code correlationId} was answered with {@code status}; {@code version}: the answer's data
         * version (a GET's, a TTL read's, a CONDITION_FAILED's present one); {@code payload}: value or reason.
         */
        void answered(long correlationId, Status status, long version, byte[] payload);

        /** A run of answers was delivered: write what is ready. */
        void answersDelivered();

        /** The node closed this endpoint (the connection budget was full, or it is stopping). */
        void closedByNode();
    }

    RespEndpoint(final Channel channel, final EndpointHandler requestThread, final Answers answers)
    {
        this.channel = channel;
        this.requestThread = requestThread;
        this.answers = answers;
    }

    /** Event loop: announce the connection and attach it with {@code ticket}; the answer comes as {@link #ATTACH_ID}. */
    void attach(final byte[] ticket)
    {
        requestThread.onConnected(this);
        final AttachRequestFlyweight attach = new AttachRequestFlyweight().wrap(message, 0,
            AttachRequestFlyweight.ENCODED_LENGTH).header(MessageType.ATTACH_REQUEST, ATTACH_ID).ticket(ticket);
        requestThread.onMessage(this, message, 0, attach.encodedLength());
    }

    /** Event loop: the correlation id of the next request (registered before it is sent: it may be answered at once). */
    long nextCorrelationId()
    {
        return nextCorrelationId++;
    }

    /** Event loop: GET or DELETE of {@code key}, as request {@code id}. */
    void keyRequest(final long id, final MessageType type, final byte[] key)
    {
        message.checkLimit(KeyRequestFlyweight.KEY_OFFSET + key.length);
        keyRequest.wrap(message, 0, KeyRequestFlyweight.KEY_OFFSET + key.length).header(type, id).key(key);
        requestThread.onMessage(this, message, 0, keyRequest.encodedLength());
    }

    /** Event loop: PUT {@code key -> value}, as request {@code id}. */
    void put(final long id, final byte[] key, final byte[] value)
    {
        final int length = PutRequestFlyweight.KEY_OFFSET + key.length + value.length;
        message.checkLimit(length);
        putRequest.wrap(message, 0, length).header(MessageType.PUT_REQUEST, id);
        putRequest.keyAndValue(key, value);
        requestThread.onMessage(this, message, 0, putRequest.encodedLength());
    }

    /** Event loop: a RECORD_WRITE of {@code key} (no write id: RESP clients do not retry by id), as request {@code id}. */
    void record(final long id, final int op, final long expectedVersion, final long argument, final byte[] key,
        final byte[] value)
    {
        final byte[] v = value == null ? new byte[0] : value;
        final int length = RecordWriteRequestFlyweight.KEY_OFFSET + key.length + v.length;
        message.checkLimit(length);
        recordRequest.wrap(message, 0, length).header(MessageType.RECORD_WRITE_REQUEST, id);
        recordRequest.write(op, expectedVersion, argument, key, v);
        requestThread.onMessage(this, message, 0, recordRequest.encodedLength());
    }

    /** Event loop: a KEY_SCAN of {@code body} ({@link KeyScanRequestFlyweight#body}), as request {@code id}. */
    void keyScan(final long id, final byte[] body)
    {
        final int length = MessageHeaderFlyweight.HEADER_LENGTH + body.length;
        message.checkLimit(length);
        keyScanRequest.wrap(message, 0, length).request(id, new UnsafeBuffer(body), 0, body.length);
        requestThread.onMessage(this, message, 0, length);
    }

    /** Event loop: an atomic BATCH_WRITE of {@code count} encoded entries (MSET in one slot), as request {@code id}. */
    void batch(final long id, final int count, final byte[] entries)
    {
        final int length = BatchWriteRequestFlyweight.ENTRIES_OFFSET + entries.length;
        message.checkLimit(length);
        batchRequest.wrap(message, 0, length).header(MessageType.BATCH_WRITE_REQUEST, id);
        batchRequest.write(count, new UnsafeBuffer(entries), 0, entries.length);
        requestThread.onMessage(this, message, 0, batchRequest.encodedLength());
    }

    /**
     * Event loop: whether the connection is inside a read (between its first command and the read's end). Answers
     * given meanwhile on the loop wait for {@link #deliverLocal} at the read's end: one write and one flush for the
     * read, no task.
     */
    void reading(final boolean reading)
    {
        this.reading = reading;
    }

    /** Event loop: hand the answers given on the loop to the connection (no write: the caller writes). */
    void deliverLocal()
    {
        localScheduled = false;
        Answer a;
        while ((a = local.poll()) != null)
        {
            answers.answered(a.correlationId, a.status, a.version, a.payload);
        }
    }

    private void drainLocal()
    {
        if (!localScheduled)
        {
            return; // delivered at a read's end meanwhile
        }
        deliverLocal();
        answers.answersDelivered();
    }

    /** Event loop: the RESP connection ended; the request thread forgets the endpoint. */
    void disconnected()
    {
        if (closed.compareAndSet(false, true))
        {
            requestThread.onDisconnected(this, TransportStatus.CLOSED, "RESP connection closed");
        }
    }

    /** Request thread: a RESPONSE to one of this connection's requests. */
    @Override
    public long send(final DirectBuffer buffer, final int offset, final int length, final CompletionHandler handler)
    {
        response.wrap(buffer, offset, length);
        final Status status = response.status();
        final byte[] payload = response.valueLength() == 0 ? null : response.value();
        final Answer answer = new Answer(response.correlationId(), status, response.version(), payload);
        if (channel.eventLoop().inEventLoop())
        {
            // The request thread is this connection's loop (a tcp node): no queue between threads. Within a read the
            // answers wait for its end; otherwise (a batch of PUTs written at the loop's duty cycle) one task per run.
            local.add(answer);
            if (!reading && !localScheduled)
            {
                localScheduled = true;
                channel.eventLoop().execute(drainLocal);
            }
        }
        else
        {
            arrived.add(answer);
            if (drainScheduled.compareAndSet(false, true))
            {
                channel.eventLoop().execute(this::drain);
            }
        }
        if (handler != null)
        {
            handler.onComplete(TransportStatus.OK, 0);
        }
        return 0;
    }

    private void drain()
    {
        drainScheduled.set(false);
        deliverLocal();
        Answer a;
        while ((a = arrived.poll()) != null)
        {
            answers.answered(a.correlationId, a.status, a.version, a.payload);
        }
        answers.answersDelivered();
    }

    /** Request thread (or the event loop): the node ends this connection. */
    @Override
    public void close()
    {
        if (closed.compareAndSet(false, true))
        {
            channel.eventLoop().execute(() ->
            {
                drain();
                answers.closedByNode();
            });
        }
    }

    @Override
    public boolean isConnected()
    {
        return !closed.get() && channel.isActive();
    }

    @Override
    public InetSocketAddress remoteAddress()
    {
        return (InetSocketAddress)channel.remoteAddress();
    }

    @Override
    public int outstanding()
    {
        return 0;
    }

    @Override
    public long read(final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
    {
        return TransportStatus.ACCESS_DENIED.sentinel();
    }

    /** A RESP connection belongs to no transport worker (it is served by the RESP listener's event loop). */
    @Override
    public Worker worker()
    {
        throw new UnsupportedOperationException("a RESP connection has no transport worker");
    }

    @Override
    public String toString()
    {
        return "resp:" + channel.remoteAddress();
    }

    private record Answer(long correlationId, Status status, long version, byte[] payload)
    {
    }
}
