package io.rdmakv.protocol.wire;

/**
 * Message types of the data-plane protocol (the header's type byte). Stable codes: never renumber.
 */
public enum MessageType
{
    GET_REQUEST(1),
    PUT_REQUEST(2),
    DELETE_REQUEST(3),
    /** Reserved for a batched GET; not part of protocol version 1, decoders answer {@code UNKNOWN_TYPE}. */
    MULTI_GET_REQUEST(4),
    STATS_REQUEST(5),
    RESPONSE(6),
    /**
     * The first message on every new data endpoint: presents the session ticket of a WELCOME. A server serves
     * nothing on an endpoint before a valid ATTACH (see {@link AttachRequestFlyweight}).
     */
    ATTACH_REQUEST(7),
    /** A primary's write to a replica of its slot range (see {@link ReplicateRequestFlyweight}). */
    REPLICATE_REQUEST(8),
    /** One page of a slot range from a snapshot (backup; see {@link ScanRequestFlyweight}). */
    SCAN_REQUEST(9),
    /**
     * A write that reads the key's record on the primary first: conditional on its data version, a counter, an expiry
     * change; or a PUT with an expiry (see {@link RecordWriteRequestFlyweight}). Codes 10-19 are this family's.
     */
    RECORD_WRITE_REQUEST(10),
    /**
     * Puts and deletes of keys of one hash slot, applied all or nothing (one RocksDB write batch, replicated as one
     * unit; see {@link BatchWriteRequestFlyweight}).
     */
    BATCH_WRITE_REQUEST(11),
    /**
     * Keys (and, flagged, values) of a run of hash slots in key order from a point, bounded per answer: the
     * cluster-wide key scan and the ordered range and prefix reads (see {@link KeyScanRequestFlyweight}). Codes 20-24
     * belong to scans and multi-key writes.
     */
    KEY_SCAN_REQUEST(20);

    private static final MessageType[] BY_CODE = new MessageType[256];

    static
    {
        for (final MessageType t : values())
        {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    MessageType(final int code)
    {
        this.code = code;
    }

    public int code()
    {
        return code;
    }

    /** The type for a wire code, or {@code null} when unknown. Never throws, never allocates. */
    public static MessageType fromCode(final int code)
    {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
