package io.rdmakv.transport.base;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;


/**
 * What every transport's endpoint shares, as Netty's {@code AbstractChannel}/{@code AbstractUnsafe}: its life (one
 * {@link EndpointLifecycle}: connecting, connected, closing, closed), the argument checks of {@link #send} and
 * {@link #read} and the refusal of operations unless connected (so a transport's {@link #doPostSend} /
 * {@link #doPostRead} see only valid arguments on a connected endpoint), the {@link OperationWindow} (credits, pending
 * queue, in-flight ids, deadlines), and {@code onConnected} / {@code onDisconnected} each delivered exactly once. A
 * transport extends it with its wire: how a frame, a ring record or a work request is posted, how its answer comes
 * back, and what it releases at the end ({@link #doTeardown}).
 * <pre>
 *   markConnected()             CONNECTING -> CONNECTED (the handshake is over)
 *   requestClose()              the application closed it: refused with CLOSED from now on
 *   beginClose(status, detail)  -> CLOSING, once: its caller fails what is outstanding (the cause is kept)
 *   finishClose()               CLOSING -> CLOSED, once: doTeardown(), then onDisconnected(cause)
 * </pre>
 *
 * @param <O> the transport's pooled operation.
 */
public abstract class AbstractEndpoint<O extends Operation> implements Endpoint
{
    protected final OperationWindow<O> window;
    protected final EndpointHandler handler;
    /** The endpoint's life; its helpers read it, only this class moves it. */
    protected final EndpointLifecycle lifecycle = new EndpointLifecycle();
    private final int transportId;
    private final Worker worker;

    /**
     * @param window      the endpoint's operations.
     * @param handler     the application's events of this endpoint.
     * @param transportId the {@link RemoteKey} transport id reads must carry.
     * @param worker      the worker whose progress runs the endpoint's callbacks.
     */
    protected AbstractEndpoint(final OperationWindow<O> window, final EndpointHandler handler, final int transportId,
        final Worker worker)
    {
        this.window = window;
        this.handler = handler;
        this.transportId = transportId;
        this.worker = worker;
    }

    /** The largest message {@link #send} accepts. */
    protected abstract int maxSendBytes();

    /** The largest read {@link #read} accepts. */
    protected abstract int maxReadBytes();

    /**
     * Post a send whose arguments were checked on an endpoint that was connected at the check; a request id or a
     * negative sentinel. The transport checks {@link EndpointLifecycle#refusalSentinel()} again under its lock.
     */
    protected abstract long doPostSend(DirectBuffer buffer, int offset, int length, CompletionHandler handler);

    /** Post a read whose arguments were checked, as {@link #doPostSend}; a request id or a negative sentinel. */
    protected abstract long doPostRead(long remoteAddress, RemoteKey remoteKey, int length,
        MutableDirectBuffer destination, int destinationOffset, CompletionHandler handler);

    /**
     * Release what the connection holds (mappings, descriptors, the worker's reference): called once, by
     * {@link #finishClose()}, on the thread that delivers {@code onDisconnected}, just before it.
     */
    protected abstract void doTeardown();

    /** A refusal of every read before its arguments are looked at (tcp: emulated reads switched off); else null. */
    protected TransportStatus readRefusal()
    {
        return null;
    }

    /** A transport's own check of the remote range after the common ones (verbs: inside the key); else null. */
    protected TransportStatus checkRemoteRange(final long remoteAddress, final RemoteKey remoteKey, final int length)
    {
        return null;
    }

    @Override
    public final long send(final DirectBuffer buffer, final int offset, final int length,
        final CompletionHandler handler)
    {
        final TransportStatus invalid = OperationChecks.checkSend(buffer, offset, length, maxSendBytes());
        if (invalid != null)
        {
            return invalid.sentinel();
        }
        final long refused = lifecycle.refusalSentinel(); // before anything is copied
        return refused < 0 ? refused : doPostSend(buffer, offset, length, handler);
    }

    @Override
    public final long read(final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
    {
        final TransportStatus invalid = checkRead(remoteAddress, remoteKey, length, destination, destinationOffset);
        if (invalid != null)
        {
            return invalid.sentinel();
        }
        final long refused = lifecycle.refusalSentinel();
        return refused < 0 ? refused :
            doPostRead(remoteAddress, remoteKey, length, destination, destinationOffset, handler);
    }

    /** {@code null} when a read with these arguments may be posted, else the status that refuses it. */
    protected final TransportStatus checkRead(final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset)
    {
        final TransportStatus refused = readRefusal();
        if (refused != null)
        {
            return refused;
        }
        final TransportStatus invalid = OperationChecks.checkRead(remoteKey, transportId, length, maxReadBytes(),
            destination, destinationOffset);
        return invalid != null ? invalid : checkRemoteRange(remoteAddress, remoteKey, length);
    }

    @Override
    public boolean isConnected()
    {
        return lifecycle.isConnected();
    }

    @Override
    public int outstanding()
    {
        return window.outstanding();
    }

    @Override
    public final Worker worker()
    {
        return worker;
    }

    /** The application's events of this endpoint. */
    public final EndpointHandler handler()
    {
        return handler;
    }

    // ---------------------------------------------------------------- lifecycle

    /** CONNECTING to CONNECTED; false when it was not connecting any more (a close came first). */
    protected final boolean markConnected()
    {
        return lifecycle.connect();
    }

    /**
     * Deliver {@code onConnected} (an accepted endpoint, on the progress thread): once, and never after
     * {@code onDisconnected}.
     */
    public final void deliverConnected()
    {
        if (lifecycle.claimConnectedDelivery())
        {
            Callbacks.connected(handler, this);
        }
    }

    /** The application closed the endpoint: refused with CLOSED from now on; false when it had done so already. */
    protected final boolean requestClose()
    {
        return lifecycle.requestClose();
    }

    /**
     * Start going down with this cause ({@code onDisconnected}'s status and detail): true for the one caller that
     * moved the endpoint to CLOSING, which then fails what is outstanding and, once nothing is, calls
     * {@link #finishClose()}.
     */
    protected final boolean beginClose(final TransportStatus status, final String detail)
    {
        return lifecycle.beginClose(status, detail);
    }

    /** CLOSING to CLOSED, once: {@link #doTeardown()}, then {@code onDisconnected}; true when it ran now. */
    protected final boolean finishClose()
    {
        if (!lifecycle.finish())
        {
            return false;
        }
        doTeardown();
        Callbacks.disconnected(handler, this, lifecycle.closeStatus(), lifecycle.closeDetail());
        return true;
    }
}
