package io.rdmakv.transport.base;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.TransportStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls into the application's handlers: a handler that throws is logged, never propagated into the transport. */
public final class Callbacks
{
    private static final Logger LOG = LoggerFactory.getLogger(Callbacks.class);

    private Callbacks()
    {
    }

    /** Run {@code handler} (nothing when {@code null}) with {@code status} for request {@code requestId}. */
    public static void complete(final CompletionHandler handler, final TransportStatus status, final long requestId)
    {
        if (handler == null)
        {
            return;
        }
        try
        {
            handler.onComplete(status, requestId);
        }
        catch (final Throwable t)
        {
            LOG.error("completion handler threw (request {}, {})", requestId, status, t);
        }
    }

    /** Tell {@code handler} that {@code endpoint} is connected (an accepted one). */
    public static void connected(final EndpointHandler handler, final Endpoint endpoint)
    {
        try
        {
            handler.onConnected(endpoint);
        }
        catch (final Throwable t)
        {
            LOG.error("onConnected handler of {} threw", endpoint, t);
        }
    }

    /** Tell {@code handler} that {@code endpoint} is gone. */
    public static void disconnected(final EndpointHandler handler, final Endpoint endpoint,
        final TransportStatus status, final String detail)
    {
        try
        {
            handler.onDisconnected(endpoint, status, detail);
        }
        catch (final Throwable t)
        {
            LOG.error("onDisconnected handler of {} threw", endpoint, t);
        }
    }
}
