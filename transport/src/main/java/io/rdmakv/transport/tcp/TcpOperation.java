package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.rdmakv.transport.base.Operation;
import org.agrona.MutableDirectBuffer;

/**
 * One send or read of a {@link TcpEndpoint}, pooled by its {@link io.rdmakv.transport.base.OperationWindow}.
 * Owned by whoever removed it from the window (I/O thread or worker); published to the worker through the
 * endpoint's completion queue, which gives the happens-before edge for its status and read data.
 */
final class TcpOperation extends Operation
{
    boolean isSend;
    /** The encoded frame while the operation waits in the pending queue; {@code null} once handed to the wire. */
    ByteBuf frame;
    MutableDirectBuffer destination;
    int destinationOffset;
    int length;

    @Override
    protected void clear()
    {
        if (frame != null)
        {
            frame.release(); // never written (pending when it failed or timed out)
            frame = null;
        }
        destination = null;
    }
}
