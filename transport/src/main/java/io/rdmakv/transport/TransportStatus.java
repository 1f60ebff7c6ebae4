package io.rdmakv.transport;

/**
 * Stable status codes of the transport layer. Hot-path operations return them (as a negative {@code long} sentinel
 * where a request id is returned otherwise) instead of throwing; completions carry them.
 * The codes are part of the public contract: never renumber.
 */
public enum TransportStatus
{
    OK(0, "ok"),
    /** Credits and the pending queue are both full: progress the worker and try again. */
    BACK_PRESSURED(1, "back-pressured: in-flight and pending limits reached"),
    NOT_CONNECTED(2, "endpoint not connected"),
    CLOSED(3, "endpoint or worker closed"),
    /** The target refused a read: the rkey's token did not match its registration. */
    INVALID_RKEY(4, "remote key rejected (token or region unknown)"),
    /** The target refused a read that leaves the registered region. */
    OUT_OF_BOUNDS(5, "read outside the registered region"),
    MESSAGE_TOO_LARGE(6, "message larger than the transport's limit"),
    TIMED_OUT(7, "operation timed out"),
    /** The peer went away (connection reset, retry exceeded, QP in error) before the operation completed. */
    PEER_FAILED(8, "peer failed or connection lost"),
    /** The transport or device reported an error it could not attribute further. */
    TRANSPORT_ERROR(9, "transport error"),
    /** The target does not allow this operation (e.g. remote access error on verbs). */
    ACCESS_DENIED(10, "remote access denied");

    private final int code;
    private final String description;

    TransportStatus(final int code, final String description)
    {
        this.code = code;
        this.description = description;
    }

    public int code()
    {
        return code;
    }

    public String description()
    {
        return description;
    }

    /** The sentinel returned by operations that otherwise return a non-negative request id. */
    public long sentinel()
    {
        return -code;
    }

    public static TransportStatus fromCode(final int code)
    {
        for (final TransportStatus s : values())
        {
            if (s.code == code)
            {
                return s;
            }
        }
        return TRANSPORT_ERROR;
    }

    /** Decode a negative sentinel returned by an operation. */
    public static TransportStatus fromSentinel(final long sentinel)
    {
        return fromCode((int)-sentinel);
    }
}
