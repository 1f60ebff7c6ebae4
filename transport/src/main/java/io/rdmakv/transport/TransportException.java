package io.rdmakv.transport;

/** Failures outside the hot path: opening, registering, connecting. The hot path returns {@link TransportStatus}. */
public class TransportException extends RuntimeException
{
    private final TransportStatus status;

    public TransportException(final String message)
    {
        this(TransportStatus.TRANSPORT_ERROR, message, null);
    }

    public TransportException(final String message, final Throwable cause)
    {
        this(TransportStatus.TRANSPORT_ERROR, message, cause);
    }

    public TransportException(final TransportStatus status, final String message, final Throwable cause)
    {
        super(message, cause);
        this.status = status;
    }

    public TransportStatus status()
    {
        return status;
    }
}
