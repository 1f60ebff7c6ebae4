package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * The primary's connection to one replica, on the node's own transport worker (TCP, or RC on verbs): authenticated
 * like a client (HELLO with the cluster secret on a connector thread, then ATTACH), then one REPLICATE message per
 * write, answered in order. Messages sent before the link is attached wait in a bounded queue.
 *
 * <pre>
 *   IDLE --send--> HANDSHAKE (connector thread: HELLO -> ticket) --> CONNECTING (worker.connect) --> ATTACHING
 *        --RESPONSE OK to ATTACH--> READY: queued messages go out;  any failure or disconnect --> IDLE + onLinkDown
 * </pre>
 * Request thread only, except the handshake, which hands its result back through {@link Inbox}.
 */
final class PeerLink implements EndpointHandler
{
    /** What the link reports, on the request thread. */
    interface Listener
    {
        /** RESPONSE to a REPLICATE message ({@code response}: valid during the call only). */
        void onAck(int nodeId, long correlationId, Status status, ResponseFlyweight response);

        /** The link failed or closed: every message not answered yet is lost. */
        void onLinkDown(int nodeId, String reason);
    }

    /** Runs a hand-off on the request thread (and wakes it). */
    interface Inbox
    {
        void post(Runnable task);
    }

    static final int MAX_QUEUED = 65_536;
    private static final Logger LOG = LoggerFactory.getLogger(PeerLink.class);
    private static final long ATTACH_CORRELATION_ID = 0;
    private static final int HANDSHAKE_TIMEOUT_MILLIS = 5_000;

    private enum State
    {
        IDLE, HANDSHAKE, CONNECTING, ATTACHING, READY
    }

    private final ClusterMember member;
    private final Worker worker;
    private final String transport;
    private final PeerAccess access;
    private final Executor connector;
    private final Inbox inbox;
    private final Listener listener;
    private final ArrayDeque<byte[]> queued = new ArrayDeque<>();
    private final UnsafeBuffer attachBuffer = new UnsafeBuffer(new byte[AttachRequestFlyweight.ENCODED_LENGTH]);
    private final UnsafeBuffer queuedView = new UnsafeBuffer(0, 0);
    private final ResponseFlyweight response = new ResponseFlyweight();
    private State state = State.IDLE;
    private Endpoint endpoint;
    /** Bumped on every reset, so a late hand-off of an abandoned attempt is ignored. */
    private int attempt;

    PeerLink(final ClusterMember member, final Worker worker, final String transport, final PeerAccess access,
        final Executor connector, final Inbox inbox, final Listener listener)
    {
        this.member = member;
        this.worker = worker;
        this.transport = transport;
        this.access = access;
        this.connector = connector;
        this.inbox = inbox;
        this.listener = listener;
    }

    int nodeId()
    {
        return member.nodeId();
    }

    boolean isReady()
    {
        return state == State.READY;
    }

    /**
     * Send one message (copied before return), connecting first when needed.
     *
     * @return false when it cannot be sent or queued (the caller treats the replica as failed).
     */
    boolean send(final DirectBuffer buffer, final int offset, final int length)
    {
        if (state == State.READY)
        {
            final long id = endpoint.send(buffer, offset, length, null);
            return id >= 0;
        }
        if (queued.size() >= MAX_QUEUED)
        {
            return false;
        }
        final byte[] copy = new byte[length];
        buffer.getBytes(offset, copy);
        queued.add(copy);
        if (state == State.IDLE)
        {
            startHandshake();
        }
        return true;
    }

    private void startHandshake()
    {
        state = State.HANDSHAKE;
        final int thisAttempt = ++attempt;
        final InetSocketAddress control = new InetSocketAddress(member.host(), member.controlPort());
        connector.execute(() ->
        {
            try
            {
                final byte[] ticket = PeerHandshake.ticket(control, transport, access, HANDSHAKE_TIMEOUT_MILLIS);
                inbox.post(() -> connect(thisAttempt, ticket));
            }
            catch (final Exception ex)
            {
                inbox.post(() -> fail(thisAttempt, "handshake with " + control + " failed: " + ex.getMessage()));
            }
        });
    }

    private void connect(final int thisAttempt, final byte[] ticket)
    {
        if (thisAttempt != attempt)
        {
            return;
        }
        state = State.CONNECTING;
        final InetSocketAddress data = new InetSocketAddress(member.host(), member.dataPort());
        worker.connect(data, this).whenComplete((ep, ex) ->
        {
            if (ex != null)
            {
                inbox.post(() -> fail(thisAttempt, "connect to " + data + " failed: " + ex.getMessage()));
                return;
            }
            inbox.post(() -> attach(thisAttempt, ep, ticket));
        });
    }

    private void attach(final int thisAttempt, final Endpoint ep, final byte[] ticket)
    {
        if (thisAttempt != attempt)
        {
            ep.close();
            return;
        }
        endpoint = ep;
        state = State.ATTACHING;
        final AttachRequestFlyweight attach = new AttachRequestFlyweight();
        attach.wrap(attachBuffer, 0, attachBuffer.capacity()).header(MessageType.ATTACH_REQUEST, ATTACH_CORRELATION_ID)
            .ticket(ticket);
        if (ep.send(attachBuffer, 0, attach.encodedLength(), null) < 0)
        {
            fail(thisAttempt, "ATTACH to node " + member.nodeId() + " not sent");
        }
    }

    @Override
    public void onMessage(final Endpoint ep, final DirectBuffer buffer, final int offset, final int length)
    {
        if (ep != endpoint)
        {
            return;
        }
        final Status status;
        final long correlationId;
        try
        {
            response.wrap(buffer, offset, length).validate();
            status = response.status();
            correlationId = response.correlationId();
        }
        catch (final RuntimeException ex)
        {
            fail(attempt, "malformed answer from node " + member.nodeId() + ": " + ex.getMessage());
            return;
        }
        if (state == State.ATTACHING)
        {
            if (correlationId != ATTACH_CORRELATION_ID || status != Status.OK)
            {
                fail(attempt, "node " + member.nodeId() + " refused the ATTACH: " + status);
                return;
            }
            state = State.READY;
            LOG.info("replication link to node {} at {} ready over {} (the node's main transport)", member.nodeId(),
                ep.remoteAddress(), transport);
            byte[] next;
            while ((next = queued.poll()) != null)
            {
                queuedView.wrap(next);
                if (ep.send(queuedView, 0, next.length, null) < 0)
                {
                    fail(attempt, "send to node " + member.nodeId() + " refused");
                    return;
                }
            }
            return;
        }
        listener.onAck(member.nodeId(), correlationId, status, response);
    }

    @Override
    public void onDisconnected(final Endpoint ep, final TransportStatus status, final String detail)
    {
        if (ep == endpoint)
        {
            fail(attempt, "link to node " + member.nodeId() + " lost: " + status + " " + detail);
        }
    }

    /** Drop the connection and everything queued; the next send reconnects. */
    private void fail(final int thisAttempt, final String reason)
    {
        if (thisAttempt != attempt || state == State.IDLE)
        {
            return;
        }
        LOG.warn("replication: {}", reason);
        attempt++;
        state = State.IDLE;
        queued.clear();
        final Endpoint ep = endpoint;
        endpoint = null;
        if (ep != null)
        {
            ep.close();
        }
        listener.onLinkDown(member.nodeId(), reason);
    }

    void close()
    {
        attempt++;
        state = State.IDLE;
        queued.clear();
        if (endpoint != null)
        {
            endpoint.close();
            endpoint = null;
        }
    }
}
