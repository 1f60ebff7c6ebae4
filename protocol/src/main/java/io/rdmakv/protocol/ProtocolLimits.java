package io.rdmakv.protocol;

/**
 * Size limits shared by the pool layout, the wire messages and the control plane.
 */
public final class ProtocolLimits
{
    /** Longest key any message or extent may carry; also fits the extent's u16 key length. */
    public static final int MAX_KEY_LENGTH = 1024;

    /** Value limit a server applies unless configured otherwise. */
    public static final int DEFAULT_MAX_VALUE_LENGTH = 1024 * 1024;

    /** Extents are 64-byte aligned and sized in 64-byte units. */
    public static final int EXTENT_ALIGNMENT = 64;

    /** Largest extent an index slot can describe: 15 bits of 64-byte units, i.e. 2 MiB - 64 B. */
    public static final int MAX_EXTENT_LENGTH = ((1 << 15) - 1) * EXTENT_ALIGNMENT;

    /** Largest value the format can hold (with an empty key; the extent header is 40 bytes); servers configure a limit at or below it. */
    public static final int MAX_FORMAT_VALUE_LENGTH = MAX_EXTENT_LENGTH - 40;

    /** Largest control-plane frame (after the u32 length prefix). */
    public static final int MAX_CONTROL_FRAME_LENGTH = 64 * 1024;

    /** Number of cluster hash slots keys are routed by. */
    public static final int HASH_SLOT_COUNT = 16384;

    private ProtocolLimits()
    {
    }
}
