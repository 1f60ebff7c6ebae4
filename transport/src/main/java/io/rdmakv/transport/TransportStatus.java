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
    /**
     * The target refused a read: it does not know the region (closed, deregistered or never registered) or the rkey's
     * token did not match its registration. What a read of a just-closed region reports on every transport (see
     * {@link Endpoint#read} for what the endpoint does afterwards).
     */
    INVALID_RKEY(4, "remote key rejected (token or region unknown)"),
    /** The target refused a read that leaves the registered region. */
    OUT_OF_BOUNDS(5, "read outside the registered region"),
    MESSAGE_TOO_LARGE(6, "message larger than the transport's limit"),
    TIMED_OUT(7, "operation timed out"),
    /**
     * The peer went away (connection reset, retry exceeded, QP in error) before the operation completed; also what
     * operations outstanding beside a read the target refused report on verbs, whose refusal ends the connection.
     */
    PEER_FAILED(8, "peer failed or connection lost"),
    /** The transport or device reported an error it could not attribute further. */
    TRANSPORT_ERROR(9, "transport error"),
    /**
     * The target does not allow this operation: a region without remote read, or emulated reads switched off (tcp).
     * Verbs reports a remote access error of a read as {@link #INVALID_RKEY} (its device gives one error for both).
     */
    ACCESS_DENIED(10, "remote access denied");

    /** Indexed by code; {@code values()} would clone the array on every completion. */
    private static final TransportStatus[] BY_CODE = byCode();

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

    /** The status with {@code code}; {@link #TRANSPORT_ERROR} for an unknown code. Never allocates. */
    public static TransportStatus fromCode(final int code)
    {
        final TransportStatus s = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        return s == null ? TRANSPORT_ERROR : s;
    }

    private static TransportStatus[] byCode()
    {
        int max = 0;
        for (final TransportStatus s : values())
        {
            max = Math.max(max, s.code);
        }
        final TransportStatus[] table = new TransportStatus[max + 1];
        for (final TransportStatus s : values())
        {
            table[s.code] = s;
        }
        return table;
    }

    /** Decode a negative sentinel returned by an operation. */
    public static TransportStatus fromSentinel(final long sentinel)
    {
        return fromCode((int)-sentinel);
    }
}
