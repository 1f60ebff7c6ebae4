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
}
