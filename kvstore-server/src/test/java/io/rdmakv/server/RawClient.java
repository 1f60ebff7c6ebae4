package io.rdmakv.server;

import io.rdmakv.protocol.layout.ExtentStatus;
import io.rdmakv.protocol.layout.IndexBucketFlyweight;
import io.rdmakv.protocol.layout.IndexEntry;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.layout.PoolHeaderFlyweight;
import io.rdmakv.protocol.layout.ValueExtentFlyweight;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.tcp.TcpTransportProvider;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A test client that speaks the raw data-plane protocol over the TCP transport: it builds requests with the
 * protocol's flyweights, and reads the pool one-sided through the remote key like a real client. Not the product
 * client (kvstore-client); just enough to drive the server from tests. {@code new RawClient(data)} is a bare,
 * unattached connection (the node serves it nothing); {@link #attached} handshakes and attaches first.
 */
final class RawClient implements AutoCloseable
{
    private final Transport transport;
    private final Worker worker;
    private final AgentRunner runner;
    private final Endpoint endpoint;
    private final BlockingQueue<Reply> replies = new LinkedBlockingQueue<>();
    private final UnsafeBuffer request = new UnsafeBuffer(new byte[(2 << 20) + 4096]);
    private long nextCorrelationId = 1;

    /** A decoded RESPONSE. */
    record Reply(long correlationId, Status status, long version, byte[] value)
    {
        String text()
        {
            return new String(value, StandardCharsets.UTF_8);
        }
    }

    RawClient(final InetSocketAddress data) throws Exception
    {
        this(data, new SleepingMillisIdleStrategy(1));
    }

    /** @param idle how the client's progress thread waits (a yielding one for latency figures). */
    RawClient(final InetSocketAddress data, final org.agrona.concurrent.IdleStrategy idle) throws Exception
    {
        transport = new TcpTransportProvider().open(TransportConfig.builder().maxMessageBytes((2 << 20) + 4096).build());
        worker = transport.createWorker("test-client");
        runner = new AgentRunner(idle, Throwable::printStackTrace, null, worker);
        AgentRunner.startOnThread(runner);
        endpoint = worker.connect(data, new EndpointHandler()
        {
            @Override
            public void onMessage(final Endpoint ep, final DirectBuffer buffer, final int offset, final int length)
            {
                final ResponseFlyweight r = new ResponseFlyweight().wrap(buffer, offset, length);
                r.validate();
                replies.add(new Reply(r.correlationId(), r.status(), r.version(), r.value()));
            }
        }).get(20, TimeUnit.SECONDS);
    }

    /** A client that handshook with {@code server} (no credential) and attached its data endpoint: ready to use. */
    static RawClient attached(final KvServer server) throws Exception
    {
        return attached(server.controlAddress(), server.dataAddress(), "");
    }

    /** As {@link #attached(KvServer)} with a progress thread that yields instead of sleeping 1 ms (latency figures). */
    static RawClient attachedYielding(final KvServer server) throws Exception
    {
        return attached(server.controlAddress(), server.dataAddress(), "",
            new org.agrona.concurrent.YieldingIdleStrategy());
    }

    /** Handshake on {@code control} with {@code credential}, connect to {@code data} and ATTACH with the ticket. */
    static RawClient attached(final InetSocketAddress control, final InetSocketAddress data, final String credential)
        throws Exception
    {
        return attached(control, data, credential, new SleepingMillisIdleStrategy(1));
    }

    private static RawClient attached(final InetSocketAddress control, final InetSocketAddress data,
        final String credential, final org.agrona.concurrent.IdleStrategy idle) throws Exception
    {
        final Welcome welcome = (Welcome)ControlHandshake.hello(control, credential);
        final RawClient client = new RawClient(data, idle);
        final Reply reply = client.attach(welcome.sessionTicket());
        if (reply.status() != Status.OK)
        {
            client.close();
            throw new AssertionError("ATTACH refused: " + reply.status() + " " + reply.text());
        }
        return client;
    }

    Endpoint endpoint()
    {
        return endpoint;
    }

    /** Send ATTACH with {@code ticket} and wait for the answer. */
    Reply attach(final byte[] ticket) throws Exception
    {
        final long id = nextCorrelationId++;
        final AttachRequestFlyweight attach = new AttachRequestFlyweight();
        attach.wrap(request, 0, request.capacity()).header(MessageType.ATTACH_REQUEST, id).ticket(ticket);
        send(attach.encodedLength());
        return await(id);
    }

    /** Wait until the server closed this client's endpoint; false if it is still open after the timeout. */
    boolean awaitClosed(final long timeoutMillis) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (endpoint.isConnected())
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    Reply put(final byte[] key, final byte[] value) throws Exception
    {
        return await(sendPut(key, value));
    }

    long sendPut(final byte[] key, final byte[] value)
    {
        final long id = nextCorrelationId++;
        final PutRequestFlyweight put = new PutRequestFlyweight();
        put.wrap(request, 0, request.capacity()).header(MessageType.PUT_REQUEST, id);
        put.keyAndValue(key, value);
        send(put.encodedLength());
        return id;
    }

    /**
     * A PUT carrying a write id ({@code writer}, {@code sequence}, completed-below {@code below}), as the product
     * client sends every write: sending it again with the same id is a retry.
     */
    Reply put(final byte[] key, final byte[] value, final long writer, final long sequence, final long below)
        throws Exception
    {
        final long id = nextCorrelationId++;
        final PutRequestFlyweight put = new PutRequestFlyweight();
        put.wrap(request, 0, request.capacity()).header(MessageType.PUT_REQUEST, id);
        put.keyAndValue(key, value);
        put.appendWriteId(writer, sequence, below);
        send(put.encodedLength());
        return await(id);
    }

    Reply get(final byte[] key) throws Exception
    {
        return keyRequest(MessageType.GET_REQUEST, key);
    }

    Reply delete(final byte[] key) throws Exception
    {
        return keyRequest(MessageType.DELETE_REQUEST, key);
    }

    /** A DELETE carrying a write id, as {@link #put(byte[], byte[], long, long, long)}. */
    Reply delete(final byte[] key, final long writer, final long sequence, final long below) throws Exception
    {
        final long id = nextCorrelationId++;
        final KeyRequestFlyweight r = new KeyRequestFlyweight();
        r.wrap(request, 0, request.capacity()).header(MessageType.DELETE_REQUEST, id);
        r.key(key);
        r.appendWriteId(writer, sequence, below);
        send(r.encodedLength());
        return await(id);
    }

    Reply stats() throws Exception
    {
        final long id = nextCorrelationId++;
        new MessageHeaderFlyweight().wrap(request, 0, request.capacity()).header(MessageType.STATS_REQUEST, id);
        send(MessageHeaderFlyweight.HEADER_LENGTH);
        return await(id);
    }

    Reply keyRequest(final MessageType type, final byte[] key) throws Exception
    {
        return await(sendKeyRequest(type, key));
    }

    /** Send a GET or DELETE without waiting (pipelining); {@link #await} its correlation id. */
    long sendKeyRequest(final MessageType type, final byte[] key)
    {
        final long id = nextCorrelationId++;
        final KeyRequestFlyweight r = new KeyRequestFlyweight();
        r.wrap(request, 0, request.capacity()).header(type, id);
        r.key(key);
        send(r.encodedLength());
        return id;
    }

    /** The next reply within {@code timeoutMillis}, or null. */
    Reply poll(final long timeoutMillis) throws InterruptedException
    {
        return replies.poll(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** Send arbitrary bytes as one message; the next reply is returned. */
    /** A RECORD_WRITE (conditional write, counter, expiry change, PUT with expiry) without a write id. */
    Reply recordWrite(final int op, final long expectedVersion, final long argument, final byte[] key,
        final byte[] value) throws Exception
    {
        final io.rdmakv.protocol.wire.RecordWriteRequestFlyweight w =
            new io.rdmakv.protocol.wire.RecordWriteRequestFlyweight();
        final byte[] bytes = new byte[io.rdmakv.protocol.wire.RecordWriteRequestFlyweight.KEY_OFFSET + key.length +
            value.length];
        w.wrap(new UnsafeBuffer(bytes), 0, bytes.length).header(MessageType.RECORD_WRITE_REQUEST, 4242);
        w.write(op, expectedVersion, argument, key, value);
        return raw(bytes);
    }

    /** A RECORD_WRITE carrying a write id, as {@link #put(byte[], byte[], long, long, long)}. */
    Reply recordWrite(final int op, final long expectedVersion, final long argument, final byte[] key,
        final byte[] value, final long writer, final long sequence, final long below) throws Exception
    {
        final long id = nextCorrelationId++;
        final io.rdmakv.protocol.wire.RecordWriteRequestFlyweight w =
            new io.rdmakv.protocol.wire.RecordWriteRequestFlyweight();
        w.wrap(request, 0, request.capacity()).header(MessageType.RECORD_WRITE_REQUEST, id);
        w.write(op, expectedVersion, argument, key, value);
        w.appendWriteId(writer, sequence, below);
        send(w.encodedLength());
        return await(id);
    }

    /** Send a RECORD_WRITE without a write id and without waiting; {@link #await} or {@link #poll} its answer. */
    long sendRecordWrite(final int op, final long expectedVersion, final long argument, final byte[] key,
        final byte[] value)
    {
        final long id = nextCorrelationId++;
        final io.rdmakv.protocol.wire.RecordWriteRequestFlyweight w =
            new io.rdmakv.protocol.wire.RecordWriteRequestFlyweight();
        w.wrap(request, 0, request.capacity()).header(MessageType.RECORD_WRITE_REQUEST, id);
        w.write(op, expectedVersion, argument, key, value);
        send(w.encodedLength());
        return id;
    }

    Reply raw(final byte[] bytes) throws Exception
    {
        request.putBytes(0, bytes);
        send(bytes.length);
        final Reply reply = replies.poll(20, TimeUnit.SECONDS);
        if (reply == null)
        {
            throw new AssertionError("no reply to a raw message of " + bytes.length + " bytes");
        }
        return reply;
    }

    private void send(final int length)
    {
        final long id = endpoint.send(request, 0, length, null);
        if (id < 0)
        {
            throw new AssertionError("send refused: " + io.rdmakv.transport.TransportStatus.fromSentinel(id));
        }
    }

    Reply await(final long correlationId) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline)
        {
            final Reply reply = replies.poll(100, TimeUnit.MILLISECONDS);
            if (reply != null)
            {
                if (reply.correlationId() == correlationId)
                {
                    return reply;
                }
                throw new AssertionError("reply for " + reply.correlationId() + " while waiting for " + correlationId);
            }
        }
        throw new AssertionError("no reply for correlation id " + correlationId);
    }

    /** Read {@code length} bytes of the server's pool one-sided. */
    byte[] read(final RemoteKey rkey, final long address, final int length) throws Exception
    {
        final UnsafeBuffer destination = new UnsafeBuffer(new byte[length]);
        endpoint.readAsync(address, rkey, length, destination, 0).get(20, TimeUnit.SECONDS);
        return destination.byteArray();
    }

    /**
     * A one-sided GET as a client does it: header -> buckets -> slot -> extent -> verify. Returns the value or null.
     */
    byte[] oneSidedGet(final RemoteKey rkey, final long poolAddress, final byte[] key) throws Exception
    {
        final PoolHeaderFlyweight header = new PoolHeaderFlyweight()
            .wrap(new UnsafeBuffer(read(rkey, poolAddress, PoolHeaderFlyweight.ENCODED_LENGTH)), 0).validate();
        final PoolGeometry geometry = header.geometry();
        final long hash = KeyHash.hash(key);
        final int fp = KeyHash.fingerprint(hash);
        for (final long b : new long[]{KeyHash.primaryBucket(hash, geometry.bucketCount()),
            KeyHash.secondaryBucket(hash, geometry.bucketCount())})
        {
            final IndexBucketFlyweight bucket = new IndexBucketFlyweight().wrap(new UnsafeBuffer(
                read(rkey, poolAddress + geometry.bucketOffset(b), IndexBucketFlyweight.BUCKET_LENGTH)), 0);
            for (int i = bucket.find(fp, 0); i >= 0; i = bucket.find(fp, i + 1))
            {
                final long entry = bucket.entry(i);
                if (!IndexEntry.isValid(entry, geometry))
                {
                    continue;
                }
                final byte[] bytes = read(rkey, poolAddress + IndexEntry.extentOffset(entry), IndexEntry.extentLength(entry));
                final ValueExtentFlyweight extent = new ValueExtentFlyweight().wrap(new UnsafeBuffer(bytes), 0, bytes.length);
                if (extent.verify(key) == ExtentStatus.OK)
                {
                    return extent.value();
                }
            }
        }
        return null;
    }

    /**
     * Read one extent alone, as a client that remembered where {@code key}'s value of {@code version} lives, and judge
     * it as such a client must ({@link ValueExtentFlyweight#verifyCurrent}).
     */
    ExtentStatus readRemembered(final RemoteKey rkey, final long poolAddress, final long indexEntry, final byte[] key,
        final long version) throws Exception
    {
        final byte[] bytes =
            read(rkey, poolAddress + IndexEntry.extentOffset(indexEntry), IndexEntry.extentLength(indexEntry));
        return new ValueExtentFlyweight().wrap(new UnsafeBuffer(bytes), 0, bytes.length)
            .verifyCurrent(new UnsafeBuffer(key), 0, key.length, version);
    }

    /** The pool header's COMPLETE flag, read one-sided. */
    boolean poolComplete(final RemoteKey rkey, final long poolAddress) throws Exception
    {
        return new PoolHeaderFlyweight()
            .wrap(new UnsafeBuffer(read(rkey, poolAddress, PoolHeaderFlyweight.ENCODED_LENGTH)), 0).isComplete();
    }

    @Override
    public void close()
    {
        runner.close();
        worker.close();
        transport.close();
    }
}
