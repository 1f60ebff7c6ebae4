package io.rdmakv.transport.shm;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;

/** One operation of an {@link ShmEndpoint}, pooled per endpoint: a send waiting for ring space, or a read. */
final class ShmOperation
{
    long requestId;
    CompletionHandler handler;
    TransportStatus status;
    long deadlineNanos;
    boolean isRead;
    /** A waiting send's bytes (copied, so the caller may reuse its buffer at once). */
    final ExpandableDirectByteBuffer payload = new ExpandableDirectByteBuffer(256);
    int length;
    long remoteAddress;
    RemoteKey remoteKey;
    MutableDirectBuffer destination;
    int destinationOffset;

    void reset()
    {
        handler = null;
        status = null;
        remoteKey = null;
        destination = null;
    }
}
