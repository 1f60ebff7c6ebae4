package io.rdmakv.transport.base;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every transport's endpoint shares: the argument checks of {@link #send} and {@link #read} (so a transport's
 * {@link #postSend} / {@link #postRead} see only valid arguments), the {@link OperationWindow} (state, credits,
 * pending queue, in-flight ids, deadlines), and {@code onDisconnected} delivered at most once. A transport extends it
 * with its wire: how a frame, a ring record or a work request is posted and how its answer comes back.
 *
 * @param <O> the transport's pooled operation.
 */
public abstract class AbstractEndpoint<O extends Operation> implements Endpoint
{
    protected final OperationWindow<O> window;
    protected final EndpointHandler handler;
    private final int transportId;
    private final AtomicBoolean disconnectDelivered = new AtomicBoolean();

    /**
     * @param window      the endpoint's operations.
     * @param handler     the application's events of this endpoint.
     * @param transportId the {@link RemoteKey} transport id reads must carry.
     */
    protected AbstractEndpoint(final OperationWindow<O> window, final EndpointHandler handler, final int transportId)
    {
        this.window = window;
        this.handler = handler;
        this.transportId = transportId;
    }

    /** The largest message {@link #send} accepts. */
    protected abstract int maxSendBytes();

    /** The largest read {@link #read} accepts. */
    protected abstract int maxReadBytes();

    /** Post a send whose arguments were checked; a request id or a negative sentinel. */
    protected abstract long postSend(DirectBuffer buffer, int offset, int length, CompletionHandler handler);

    /** Post a read whose arguments were checked; a request id or a negative sentinel. */
    protected abstract long postRead(long remoteAddress, RemoteKey remoteKey, int length,
        MutableDirectBuffer destination, int destinationOffset, CompletionHandler handler);

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
        return invalid != null ? invalid.sentinel() : postSend(buffer, offset, length, handler);
    }

    @Override
    public final long read(final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
    {
        final TransportStatus invalid = checkRead(remoteAddress, remoteKey, length, destination, destinationOffset);
        return invalid != null ? invalid.sentinel() :
            postRead(remoteAddress, remoteKey, length, destination, destinationOffset, handler);
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
        return window.isConnected();
    }

    @Override
    public int outstanding()
    {
        return window.outstanding();
    }

    /** The application's events of this endpoint. */
    public final EndpointHandler handler()
    {
        return handler;
    }

    /** True once {@code onDisconnected} was delivered (or claimed by {@link #claimDisconnect()}). */
    protected final boolean isDisconnectDelivered()
    {
        return disconnectDelivered.get();
    }

    /** Claim the one delivery of {@code onDisconnected}; false when it was claimed already. */
    protected final boolean claimDisconnect()
    {
        return disconnectDelivered.compareAndSet(false, true);
    }

    /** Deliver {@code onDisconnected} unless it was delivered already; true when it ran now. */
    protected final boolean notifyDisconnected(final TransportStatus status, final String detail)
    {
        if (!claimDisconnect())
        {
            return false;
        }
        Callbacks.disconnected(handler, this, status, detail);
        return true;
    }
}
