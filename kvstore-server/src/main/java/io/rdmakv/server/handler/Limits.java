package io.rdmakv.server.handler;

/**
 * What the data plane accepts.
 *
 * @param maxKeyBytes      longest key.
 * @param maxValueBytes    longest value.
 * @param maxConnections   data connections attached at once; an ATTACH beyond gets BUSY.
 */
public record Limits(int maxKeyBytes, int maxValueBytes, int maxConnections)
{
    /** Room for STATS text and error reasons even when values are tiny. */
    static final int MIN_RESPONSE_BODY = 4096;
    /** Response header and fixed body. */
    static final int RESPONSE_OVERHEAD = 64;

    public Limits
    {
        if (maxKeyBytes <= 0 || maxValueBytes < 0 || maxConnections <= 0)
        {
            throw new IllegalArgumentException("limits must be positive: key=" + maxKeyBytes + " value=" +
                maxValueBytes + " connections=" + maxConnections);
        }
    }

    /** The largest response the server sends: a maximal value, STATS text, or a SCAN page of one maximal entry. */
    public int maxResponseBytes()
    {
        return Math.max(maxValueBytes, MIN_RESPONSE_BODY) + maxKeyBytes + RESPONSE_OVERHEAD;
    }
}
