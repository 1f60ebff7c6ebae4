package io.rdmakv.transport;

import org.agrona.DirectBuffer;

/** Events of endpoints, delivered on the worker's progress thread only. */
public interface EndpointHandler
{
    /** A new endpoint is ready (accepted by a listener). Not called for endpoints obtained through connect. */
    default void onConnected(final Endpoint endpoint)
    {
    }

    /**
     * A message arrived. The buffer is only valid during this call: copy what must outlive it.
     * Messages of one endpoint arrive exactly once and in the order they were sent.
     */
    void onMessage(Endpoint endpoint, DirectBuffer buffer, int offset, int length);

    /** The endpoint is gone (closed locally, closed by the peer, or failed); {@code status} says which. */
    default void onDisconnected(final Endpoint endpoint, final TransportStatus status, final String detail)
    {
    }
}
