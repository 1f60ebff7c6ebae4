package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.TransportStatus;
import org.agrona.MutableDirectBuffer;

/**
 * One send or read of a {@link TcpEndpoint}, pooled per endpoint by its {@link TcpOperationTable} so the data path
 * allocates no operation objects.
 * Owned by whoever removed it from the endpoint's in-flight table (I/O thread or worker); published to the worker
 * through the endpoint's completion queue, which gives the happens-before edge for {@link #status} and read data.
 */
final class TcpOperation
{
    long requestId;
    boolean isSend;
    /** True once posted to the channel: it holds a credit until its completion is delivered. */
    boolean counted;
    long deadlineNanos;
    CompletionHandler handler;
    TransportStatus status;
    /** The encoded frame while the operation waits in the pending queue; {@code null} once written. */
    ByteBuf frame;
    MutableDirectBuffer destination;
    int destinationOffset;
    int length;

    void reset()
    {
        handler = null;
        status = null;
        frame = null;
        destination = null;
        counted = false;
    }
}
