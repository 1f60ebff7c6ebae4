package io.rdmakv.client;

/**
 * The key's node could not be reached or the connection was lost before the answer
 * ({@link KvError#CONNECTION_FAILED}), the transport failed ({@link KvError#TRANSPORT_FAILED}), or a node refused the
 * handshake for a reason other than credentials ({@link KvError#REJECTED}). The next request reconnects.
 */
public final class KvConnectionException extends KvException
{
    KvConnectionException(final KvError error, final String message, final Throwable cause)
    {
        super(error, message, cause);
    }
}
