package io.rdmakv.server.backup;

import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.ScanRequestFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.TransportAddress;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.Worker;
import io.rdmakv.protocol.auth.Login;
import io.rdmakv.server.control.BlockingHello;
import io.rdmakv.transport.select.TransportSelector;
import io.rdmakv.transport.tls.TlsSettings;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A tool's data-plane connection to one node (backup, restore): HELLO on the control port with the credential, the
 * node's advertised transport opened and its data endpoint attached with the WELCOME's ticket, then one request at
 * a time. Not the product client: just the requests the tools need, blocking, each with a timeout.
 */
public final class NodeConnection implements AutoCloseable
{
    /** A decoded RESPONSE (the value copied). */
    public record Answer(Status status, long version, byte[] value)
    {
        public String text()
        {
            return new String(value, StandardCharsets.UTF_8);
        }
    }

    private static final int TIMEOUT_SECONDS = 30;

    private final Welcome welcome;
    private final Transport transport;
    private final Worker worker;
    private final AgentRunner runner;
    private final Endpoint endpoint;
    private final BlockingQueue<Answer> answers = new ArrayBlockingQueue<>(1024);
    private final UnsafeBuffer request;
    private long nextCorrelationId = 1;

    private NodeConnection(final Welcome welcome, final Transport transport, final Worker worker,
        final AgentRunner runner, final Endpoint endpoint, final int maxMessage)
    {
        this.welcome = welcome;
        this.transport = transport;
        this.worker = worker;
        this.runner = runner;
        this.endpoint = endpoint;
        this.request = new UnsafeBuffer(ByteBuffer.allocateDirect(maxMessage));
    }

    /**
     * Handshake with the node at {@code control} and attach a data endpoint (TLS 1.3 on both when {@code tls} is on).
     *
     * @throws IOException when the node cannot be reached, refuses the credential or the ATTACH.
     */
    public static NodeConnection open(final InetSocketAddress control, final String credential, final TlsSettings tls)
        throws IOException
    {
        return open(control, credential, null, tls);
    }

    /**
     * As {@link #open(InetSocketAddress, String, TlsSettings)}, logging in as {@code login} (SCRAM-SHA-256) when not
     * null: a backup's scans need the role admin, a restore's writes readwrite.
     */
    public static NodeConnection open(final InetSocketAddress control, final String credential, final Login login,
        final TlsSettings tls) throws IOException
    {
        final Welcome welcome = hello(control, credential, login, tls);
        final TransportAddress address = welcome.transports().get(0);
        final int maxMessage = welcome.maxKeyLength() + welcome.maxValueLength() + 4096 + 2048;
        final TransportConfig.Builder config = TransportConfig.builder().maxMessageBytes(maxMessage);
        tls.properties().forEach(config::property);
        final Transport transport = TransportSelector.fromClassPath().select(address.transport()).provider()
            .open(config.build());
        final Worker worker = transport.createWorker("rdmakv-tool");
        final AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(), Throwable::printStackTrace, null, worker);
        AgentRunner.startOnThread(runner);
        final BlockingQueue<Answer> early = new ArrayBlockingQueue<>(1024);
        final NodeConnection[] self = new NodeConnection[1];
        try
        {
            final Endpoint endpoint = worker.connect(new InetSocketAddress(address.host(), address.port()),
                new EndpointHandler()
                {
                    @Override
                    public void onMessage(final Endpoint ep, final DirectBuffer buffer, final int offset,
                        final int length)
                    {
                        final ResponseFlyweight r = new ResponseFlyweight().wrap(buffer, offset, length);
                        r.validate();
                        final Answer answer = new Answer(r.status(), r.version(), r.value());
                        (self[0] == null ? early : self[0].answers).add(answer);
                    }
                }).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            final NodeConnection connection = new NodeConnection(welcome, transport, worker, runner, endpoint,
                maxMessage);
            self[0] = connection;
            early.drainTo(connection.answers);
            final Answer attached = connection.attach(welcome.sessionTicket());
            if (attached.status() != Status.OK)
            {
                connection.close();
                throw new IOException("node refused the ATTACH: " + attached.status() + " " + attached.text());
            }
            return connection;
        }
        catch (final IOException ex)
        {
            throw ex;
        }
        catch (final Exception ex)
        {
            runner.close();
            transport.close();
            throw new IOException("cannot connect to the data port " + address.host() + ":" + address.port() + ": " +
                ex.getMessage(), ex);
        }
    }

    public Welcome welcome()
    {
        return welcome;
    }

    /**
     * The WELCOME of the node at {@code control} alone (its view of the cluster map), no data endpoint opened.
     *
     * @throws IOException when the node cannot be reached or refuses the credential.
     */
    public static Welcome handshake(final InetSocketAddress control, final String credential, final TlsSettings tls)
        throws IOException
    {
        return hello(control, credential, null, tls);
    }

    /** As {@link #handshake(InetSocketAddress, String, TlsSettings)}, logging in as {@code login} when not null. */
    public static Welcome handshake(final InetSocketAddress control, final String credential, final Login login,
        final TlsSettings tls) throws IOException
    {
        return hello(control, credential, login, tls);
    }

    /**
     * One page of slots {@code firstSlot..lastSlot} (see {@code ScanRequestFlyweight}): snapshot 0 opens one.
     */
    public Answer scan(final int firstSlot, final int lastSlot, final int pageBytes, final long snapshotId,
        final byte[] cursor) throws IOException
    {
        final long id = nextCorrelationId++;
        final int length = new ScanRequestFlyweight().wrap(request, 0, request.capacity())
            .header(MessageType.SCAN_REQUEST, id).scan(firstSlot, lastSlot, pageBytes, snapshotId, cursor)
            .encodedLength();
        return call(length);
    }

    /** Send a PUT without waiting (pipelining); collect answers with {@link #next()}. */
    public void sendPut(final byte[] key, final byte[] value) throws IOException
    {
        final long id = nextCorrelationId++;
        final int length = new PutRequestFlyweight().wrap(request, 0, request.capacity())
            .header(MessageType.PUT_REQUEST, id).keyAndValue(key, value).encodedLength();
        send(length);
    }

    /**
     * Send a record PUT ({@link RecordWriteRequestFlyweight#OP_PUT}) without waiting: {@code value} stored under
     * {@code dataVersion} (0: the node's next) with {@code expiryMillis} (0: none), as a restore writes a backup's
     * record back; collect the answer with {@link #next()}.
     */
    public void sendRecordPut(final byte[] key, final byte[] value, final long dataVersion, final long expiryMillis)
        throws IOException
    {
        final long id = nextCorrelationId++;
        final int length = new RecordWriteRequestFlyweight().wrap(request, 0, request.capacity())
            .header(MessageType.RECORD_WRITE_REQUEST, id)
            .write(RecordWriteRequestFlyweight.OP_PUT, dataVersion, expiryMillis, key, value).encodedLength();
        send(length);
    }

    /** The next answer. */
    public Answer next() throws IOException
    {
        try
        {
            final Answer answer = answers.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (answer == null)
            {
                throw new IOException("no answer from the node within " + TIMEOUT_SECONDS + " s");
            }
            return answer;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", ex);
        }
    }

    private Answer attach(final byte[] ticket) throws IOException
    {
        final int length = new AttachRequestFlyweight().wrap(request, 0, request.capacity())
            .header(MessageType.ATTACH_REQUEST, nextCorrelationId++).ticket(ticket).encodedLength();
        return call(length);
    }

    private Answer call(final int length) throws IOException
    {
        send(length);
        return next();
    }

    private void send(final int length) throws IOException
    {
        long id;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while ((id = endpoint.send(request, 0, length, null)) < 0)
        {
            if (System.nanoTime() > deadline)
            {
                throw new IOException("the node does not take requests: " + id);
            }
            Thread.onSpinWait();
        }
    }

    private static Welcome hello(final InetSocketAddress control, final String credential, final Login login,
        final TlsSettings tls) throws IOException
    {
        return BlockingHello.exchange(control, new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of("verbs", "tcp"),
            credential.getBytes(StandardCharsets.UTF_8)), TIMEOUT_SECONDS * 1000, tls, "node", login);
    }

    @Override
    public void close()
    {
        endpoint.close();
        runner.close();
        worker.close();
        transport.close();
    }
}
