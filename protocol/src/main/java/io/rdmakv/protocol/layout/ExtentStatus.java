package io.rdmakv.protocol.layout;

/**
 * Outcome of {@link ValueExtentFlyweight#verify}: returned, never thrown, because a reader racing a writer sees torn
 * extents as a matter of course and simply retries.
 */
public enum ExtentStatus
{
    /** Lengths fit, CRC matches, the key is the expected one. */
    OK,
    /** The CRC does not match: torn or reused while being read. Retry. */
    TORN_CRC,
    /** Intact, but it holds another key (fingerprint collision, or the extent was reused). */
    KEY_MISMATCH,
    /** The length fields do not fit the bytes read (garbage or a torn header). Retry. */
    BAD_LENGTH,
    /**
     * {@link ValueExtentFlyweight#verifyCurrent} only: intact and the expected key, but not the expected version
     * (rewritten, or reused for a newer value of the same key after the grace period).
     */
    VERSION_MISMATCH,
    /**
     * {@link ValueExtentFlyweight#verifyCurrent} only: intact, the expected key and version, but the writer has marked
     * it superseded (the key was updated, deleted or evicted): its value may no longer be the committed one.
     */
    RETIRED
}
