package io.rdmakv.client;

import io.rdmakv.protocol.wire.Status;

/**
 * A failed key-value operation, typed: {@link #error()} says what kind of failure, {@link #status()} carries the
 * protocol status when the server answered with one (or refused the handshake with one).
 */
public class KvException extends RuntimeException
{
    private final KvError error;
    private final Status status;

    public KvException(final KvError error, final Status status, final String message, final Throwable cause)
    {
        super(message, cause);
        this.error = error;
        this.status = status;
    }

    public KvException(final KvError error, final String message)
    {
        this(error, null, message, null);
    }

    /** A server's error answer. */
    public static KvException serverStatus(final Status status, final String detail)
    {
        final String message = "server answered " + status + " (" + status.description() + ")" +
            (detail == null || detail.isEmpty() ? "" : ": " + detail);
        return new KvException(KvError.SERVER_STATUS, status, message, null);
    }

    public KvError error()
    {
        return error;
    }

    /** The protocol status the server gave, or {@code null} when the failure was local (timeout, connection...). */
    public Status status()
    {
        return status;
    }
}
