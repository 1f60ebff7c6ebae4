package io.rdmakv.transport.base;

import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** The argument checks of {@code Endpoint.send} and {@code Endpoint.read}, the same on every transport. */
public final class OperationChecks
{
    private OperationChecks()
    {
    }

    /**
     * @return {@code null} when a send of {@code length} bytes at {@code offset} of {@code buffer} may go, else why
     *         not: OUT_OF_BOUNDS (range outside the buffer), MESSAGE_TOO_LARGE (beyond {@code maxBytes}).
     */
    public static TransportStatus checkSend(final DirectBuffer buffer, final int offset, final int length,
        final int maxBytes)
    {
        if (buffer == null || offset < 0 || length < 0 || offset > buffer.capacity() - length)
        {
            return TransportStatus.OUT_OF_BOUNDS;
        }
        if (length > maxBytes)
        {
            return TransportStatus.MESSAGE_TOO_LARGE;
        }
        return null;
    }

    /**
     * @return {@code null} when a read may go, else why not: INVALID_RKEY (no key, or another transport's),
     *         MESSAGE_TOO_LARGE (beyond {@code maxBytes}), OUT_OF_BOUNDS (negative length, or a destination range
     *         outside {@code destination}).
     */
    public static TransportStatus checkRead(final RemoteKey remoteKey, final int transportId, final int length,
        final int maxBytes, final MutableDirectBuffer destination, final int destinationOffset)
    {
        if (remoteKey == null || remoteKey.transportId() != transportId)
        {
            return TransportStatus.INVALID_RKEY;
        }
        if (length > maxBytes)
        {
            return TransportStatus.MESSAGE_TOO_LARGE;
        }
        if (length < 0 || destination == null || destinationOffset < 0 ||
            destinationOffset > destination.capacity() - length)
        {
            return TransportStatus.OUT_OF_BOUNDS;
        }
        return null;
    }
}
