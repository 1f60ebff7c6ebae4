package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;

/**
 * The status of a {@link ResponseFlyweight} and of a REJECT control frame. Stable codes: never renumber, only append.
 */
public enum Status
{
    OK(0, "ok"),
    NOT_FOUND(1, "key not found"),
    KEY_TOO_LARGE(2, "key longer than the server allows"),
    VALUE_TOO_LARGE(3, "value longer than the server allows"),
    MALFORMED(4, "malformed request"),
    UNSUPPORTED_VERSION(5, "unsupported protocol version"),
    UNKNOWN_TYPE(6, "unknown message type"),
    STORE_ERROR(7, "the durable store failed the operation"),
    /** The key's slot belongs to another node; the response's body carries that node's "host:port" in UTF-8. */
    WRONG_NODE(8, "key belongs to another node (redirect)"),
    UNAUTHENTICATED(9, "credentials missing or rejected"),
    BUSY(10, "server busy, retry later"),
    POOL_FULL(11, "no pool space for the value"),
    /** A replication message (or request) carries a range epoch older than the receiver's: the sender is stale. */
    STALE_EPOCH(12, "range epoch older than the receiver's"),
    /**
     * The node's disk is full: it refuses PUTs until space is freed, and serves DELETEs (which free it). The text says
     * more (a DELETE refused while the store resumes may be retried).
     */
    DISK_FULL(13, "the node's disk is full: PUTs refused, DELETEs served"),
    /**
     * The session authenticated, but its user's role (or key prefixes) does not allow this request or ADMIN command;
     * the text names the user, the role needed and why. The connection stays served.
     */
    FORBIDDEN(14, "not allowed for this user's role or key prefixes"),
    /**
     * A conditional write's condition did not hold (absent / present / another data version): nothing was written. The
     * response's version is the key's current data version (0: absent).
     */
    CONDITION_FAILED(15, "the condition of the write did not hold"),
    /** An INCREMENT of a value that is not a decimal int64, or whose result would overflow: nothing was written. */
    NOT_AN_INTEGER(16, "the value is not an integer or the increment overflows"),
    /**
     * A multi-key write names keys of more than one hash slot (Redis Cluster's CROSSSLOT): nothing was written. Keys
     * sharing a hash tag ({@code {tag}}) share a slot.
     */
    CROSSSLOT(17, "keys of a multi-key write hash to different slots");

    private static final Status[] BY_CODE;

    static
    {
        final Status[] values = values();
        BY_CODE = new Status[values.length];
        for (final Status s : values)
        {
            BY_CODE[s.code] = s;
        }
    }

    private final int code;
    private final String description;

    Status(final int code, final String description)
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

    /** The status for a wire code, or {@code null} when unknown. Never throws, never allocates. */
    public static Status fromCode(final int code)
    {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** The status a server answers for a request it could not decode. */
    public static Status of(final ErrorCode errorCode)
    {
        switch (errorCode)
        {
            case KEY_TOO_LARGE:
                return KEY_TOO_LARGE;
            case VALUE_TOO_LARGE:
                return VALUE_TOO_LARGE;
            case UNSUPPORTED_VERSION:
                return UNSUPPORTED_VERSION;
            case UNKNOWN_TYPE:
                return UNKNOWN_TYPE;
            default:
                return MALFORMED;
        }
    }
}
