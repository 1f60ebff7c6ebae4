package io.rdmakv.protocol;

/**
 * Why a buffer was rejected by a flyweight or decoder. Stable codes: never renumber, only append.
 */
public enum ErrorCode
{
    /** Fewer bytes than the structure (or a length field inside it) needs. */
    TRUNCATED(1, "truncated: fewer bytes than the structure needs"),
    /** A magic number did not match. */
    BAD_MAGIC(2, "bad magic number"),
    /** A protocol or layout version this code does not speak. */
    UNSUPPORTED_VERSION(3, "unsupported version"),
    /** A message or frame type this code does not know. */
    UNKNOWN_TYPE(4, "unknown message type"),
    /** A length or count field disagrees with the bytes actually present, or overflows. */
    BAD_LENGTH(5, "length field inconsistent with the bytes present"),
    /** A key longer than {@link ProtocolLimits#MAX_KEY_LENGTH}, or empty where a key is required. */
    KEY_TOO_LARGE(6, "key length out of range"),
    /** A value longer than the format or the configured limit allows. */
    VALUE_TOO_LARGE(7, "value length out of range"),
    /** A control frame larger than {@link ProtocolLimits#MAX_CONTROL_FRAME_LENGTH}. */
    FRAME_TOO_LARGE(8, "control frame larger than the maximum"),
    /** Pool geometry that is not aligned, not a power of two, overlapping or outside the pool. */
    BAD_GEOMETRY(9, "invalid pool geometry"),
    /** An index slot field out of its bit range or not 64-byte aligned. */
    BAD_SLOT(10, "invalid index slot field"),
    /** Anything else that is structurally wrong (bad UTF-8, reserved value, ...). */
    MALFORMED(11, "malformed");

    private final int code;
    private final String description;

    ErrorCode(final int code, final String description)
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
}
