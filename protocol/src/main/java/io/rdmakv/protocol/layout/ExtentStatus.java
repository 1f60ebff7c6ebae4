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
    BAD_LENGTH
}
