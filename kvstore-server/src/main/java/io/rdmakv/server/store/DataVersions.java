package io.rdmakv.server.store;

import java.util.function.LongSupplier;

/**
 * Where a primary's data versions come from ({@link io.rdmakv.protocol.layout.ValueRecord}): a hybrid logical clock,
 * so a version costs no read and no write of its own (a plain PUT reads nothing from RocksDB to version its value).
 *
 * <pre>
 *   63                                          20 19              8 7          0
 *  +----------------------------------------------+-----------------+------------+
 *  |  wall clock, ms since the epoch (44 bits)    | count (12 bits) | node (8)   |
 *  +----------------------------------------------+-----------------+------------+
 *  next()      = max(clock &lt;&lt; 20 | node, last + 1 &lt;&lt; 8 with this node's bits): strictly above every version this
 *                node issued or observed
 *  observe(v)  = last := max(last, v): a replica's applied versions, the records found at warm-up
 * </pre>
 * Why a version is never issued twice for a key (no ABA):
 * <ul>
 *   <li>on one node: {@link #next} is strictly increasing (more than 4,096 writes in one millisecond borrow from the
 *       next one, as a hybrid logical clock does);</li>
 *   <li>across a restart: the warm-up observes the highest version in the store, and the wall clock has moved on;</li>
 *   <li>across failover and resharding: a backup observes every version it applies, so a promoted backup or a range's
 *       new owner issues versions above every version of the range it holds; and versions issued by two nodes differ
 *       in their low 8 bits (the node id modulo 256), so even two primaries of one range at once (the old one, past its
 *       lease, cut off) never issue the same number.</li>
 * </ul>
 * Limit: a node whose wall clock went back across a restart and whose warm-up stopped early (a full pool) may issue
 * versions below ones already in its store; they are still unique per node as long as the clock moved back by less
 * than the node was down, and distinct from other nodes' by their low bits.
 *
 * Request thread only (not thread-safe).
 */
public final class DataVersions
{
    /** Bits below the milliseconds: a 12-bit count and the 8-bit node. */
    public static final int CLOCK_SHIFT = 20;
    private static final long NODE_MASK = 0xFF;
    private static final long COUNT_STEP = 1L << 8;

    private final long node;
    private final LongSupplier clockMillis;
    private long last;

    /** @param nodeId the node's id; its low 8 bits are the versions' low 8 bits. */
    public DataVersions(final int nodeId)
    {
        this(nodeId, System::currentTimeMillis);
    }

    /** With an injected wall clock (tests). */
    public DataVersions(final int nodeId, final LongSupplier clockMillis)
    {
        this.node = nodeId & NODE_MASK;
        this.clockMillis = clockMillis;
    }

    /** A version above every one issued or observed so far. */
    public long next()
    {
        long v = (clockMillis.getAsLong() << CLOCK_SHIFT) | node;
        if (v <= last)
        {
            v = (((last >>> 8) + 1) << 8) | node;
        }
        last = v;
        return v;
    }

    /** Note a version issued elsewhere (replicated, found in the store): later {@link #next} values are above it. */
    public void observe(final long version)
    {
        if (Long.compareUnsigned(version, last) > 0)
        {
            last = version;
        }
    }

    /** The highest version issued or observed. */
    public long last()
    {
        return last;
    }

    /** The wall-clock millisecond a version was issued at (its high 44 bits). */
    public static long millisOf(final long version)
    {
        return version >>> CLOCK_SHIFT;
    }
}
