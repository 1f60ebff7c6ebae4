package io.rdmakv.client.internal;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.TransportStatus;

/**
 * Posts the reads of one step of a one-sided GET (the request slot's batch: buckets + header + ownership word, or an
 * extent + ownership word, or one extent) and says who goes on with the request slot: this thread, when every read
 * completed on return, or the thread that completes the last one.
 */
final class StepReads
{
    /** Every read of the step is posted; the thread that completes the last one goes on with the request slot. */
    static final long POSTED = 0;
    /** Every read of the step completed on return; the posting thread finishes the step. */
    static final long COMPLETED_HERE = 1;

    private final boolean immediate;

    /** @param immediate whether the transport completes reads on return ({@link Endpoint#readImmediate}). */
    StepReads(final boolean immediate)
    {
        this.immediate = immediate;
    }

    /**
     * Post what is left of the request slot's batch. On a transport that completes reads on return, the reads are done here
     * first, in one call ({@link Endpoint#readImmediate(Endpoint.ReadRequest[], int, int)}: on shm under one lock, so
     * the extent's and the ownership word's misses overlap), each counted down like a completion; the first it
     * cannot do (a region not mapped here yet) and the rest are posted: the whole batch through
     * {@link Endpoint#readBatch} when none was done, then one by one, so the refusal of a single read can be told
     * apart.
     *
     * <p>Once the last read is accepted the request slot belongs to the thread that completes it (the reads may already
     * have completed and moved the request slot on), so nothing here writes to the request slot after that: progress is
     * counted in a local, and written back only when something stays unposted, which keeps the step from completing.
     * When this thread counted the last read down itself, the step is its to finish.
     *
     * @return {@link #POSTED}, {@link #COMPLETED_HERE}, or the negative sentinel of the status that refused a read
     *         (BACK_PRESSURED: try again later).
     */
    long post(final RequestSlot requestSlot)
    {
        final Endpoint endpoint = requestSlot.session.endpoint();
        final int size = requestSlot.batchSize;
        int posted = requestSlot.batchPosted;
        if (immediate)
        {
            final int done = endpoint.readImmediate(requestSlot.batch, posted, size);
            while (posted < done)
            {
                final TransportStatus status = requestSlot.batch[posted].immediateStatus;
                posted++;
                if (status != TransportStatus.OK && requestSlot.readFailure == null)
                {
                    requestSlot.readFailure = status;
                }
                if (requestSlot.pendingReads.decrementAndGet() == 0)
                {
                    return COMPLETED_HERE;
                }
            }
        }
        if (posted == 0 && size > 1)
        {
            posted = endpoint.readBatch(requestSlot.batch, size);
            if (posted == size)
            {
                return POSTED;
            }
        }
        while (posted < size)
        {
            final Endpoint.ReadRequest r = requestSlot.batch[posted];
            final long id = endpoint.read(r.remoteAddress, r.remoteKey, r.length, r.destination, r.destinationOffset,
                r.handler);
            if (id < 0)
            {
                requestSlot.batchPosted = posted;
                return id;
            }
            posted++;
        }
        return POSTED;
    }
}
