package io.rdmakv.transport.shm;

import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.base.Operation;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;

/** One operation of an {@link ShmEndpoint}, pooled by its window: a send waiting for ring space, or a read. */
final class ShmOperation extends Operation
{
    boolean isRead;
    /** A waiting send's bytes (copied, so the caller may reuse its buffer at once). */
    final ExpandableDirectByteBuffer payload = new ExpandableDirectByteBuffer(256);
    int length;
    long remoteAddress;
    RemoteKey remoteKey;
    MutableDirectBuffer destination;
    int destinationOffset;

    @Override
    protected void clear()
    {
        remoteKey = null;
        destination = null;
    }
}
