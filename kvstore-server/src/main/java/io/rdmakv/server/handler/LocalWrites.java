package io.rdmakv.server.handler;

/**
 * A write path as another part sees it on the request thread: flush what is batched, count what is not durable yet
 * (the replica side's writes, which a new primary's reconcile waits for before it reads values).
 */
public interface LocalWrites
{
    /** No writes. */
    LocalWrites NONE = new LocalWrites()
    {
        @Override
        public int flush()
        {
            return 0;
        }

        @Override
        public int inFlightWrites()
        {
            return 0;
        }
    };

    /** Write what is batched now; returns the writes completed. */
    int flush();

    /** Writes accepted and not reported yet. */
    int inFlightWrites();

    /**
     * A mark of the writes accepted so far, for {@link #reportedThrough}. By default 0: a path whose writes are
     * reported once flushed has nothing in flight after {@link #flush}.
     */
    default long acceptedMark()
    {
        return 0;
    }

    /**
     * Whether every write accepted before {@code mark} ({@link #acceptedMark}) was reported, whatever was accepted
     * after it: a wait for the writes of a moment ends under a steady stream of later ones. By default, whether
     * nothing is in flight.
     */
    default boolean reportedThrough(final long mark)
    {
        return inFlightWrites() == 0;
    }
}
