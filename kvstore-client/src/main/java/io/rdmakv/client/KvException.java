package io.rdmakv.client;

/**
 * A failed key-value operation. {@link #error()} gives the stable code; the subclass gives the kind of failure a
 * caller usually branches on: {@link KvTimeoutException}, {@link KvConnectionException},
 * {@link KvAuthenticationException}, {@link KvBackPressureException}, {@link KvServerException}. The table of codes
 * per subclass is on {@link KvError}. Keys or values beyond the limits are refused before sending with an
 * {@link IllegalArgumentException} instead.
 */
public class KvException extends RuntimeException
{
    /** The stable code (serialized with the exception). */
    private final KvError error;

    KvException(final KvError error, final String message, final Throwable cause)
    {
        super(message, cause);
        this.error = error;
    }

    /** Without a stack trace: for failures that are flow control, reported many times a second under load. */
    KvException(final KvError error, final String message, final boolean withStackTrace)
    {
        super(message, null, true, withStackTrace);
        this.error = error;
    }

    /**
     * The exception for {@code error}: an instance of the subclass the code belongs to (see {@link KvError}).
     *
     * @param error   the code.
     * @param message what happened, naming the node or the setting concerned.
     * @return the typed exception, not thrown.
     */
    public static KvException of(final KvError error, final String message)
    {
        return of(error, message, null);
    }

    /**
     * The exception for {@code error} with a cause: an instance of the subclass the code belongs to.
     *
     * @param error   the code.
     * @param message what happened.
     * @param cause   the underlying failure, or {@code null}.
     * @return the typed exception, not thrown.
     */
    public static KvException of(final KvError error, final String message, final Throwable cause)
    {
        return switch (error)
        {
            case TIMED_OUT -> new KvTimeoutException(message, cause);
            case CONNECTION_FAILED, TRANSPORT_FAILED, REJECTED -> new KvConnectionException(error, message, cause);
            case AUTHENTICATION_FAILED -> new KvAuthenticationException(message, cause);
            case BACK_PRESSURE -> new KvBackPressureException(message);
            case KEY_TOO_LARGE, VALUE_TOO_LARGE, STORE_FULL, STORE_FAILED, SERVER_BUSY, REQUEST_REFUSED, SERVER_ERROR,
                FORBIDDEN, NOT_AN_INTEGER, CROSSSLOT ->
                new KvServerException(error, message);
            default -> new KvException(error, message, cause);
        };
    }

    /**
     * The stable code of this failure.
     *
     * @return never {@code null}.
     */
    public KvError error()
    {
        return error;
    }
}
