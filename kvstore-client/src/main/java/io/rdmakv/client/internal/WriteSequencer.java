package io.rdmakv.client.internal;

import java.security.SecureRandom;

/**
 * Numbers this client's writes so that a node answers a retry of a write it already applied instead of applying it
 * again (the node's side: {@code WriteIds} in the server). A PUT or DELETE takes its number at its first send and
 * keeps it on every retry (a redirect, a lost connection, a failover); the write id on the wire is this client's
 * random writer id, that number, and the completed-below mark: the lowest number of a write still in flight (every
 * write numbered below it has had its answer and is never sent again, so nodes may forget it).
 *
 * <p>The mark is found by scanning the slots every {@value #SCAN_EVERY} numbers, under the same lock that numbers a
 * write and stores the number in its slot, so a scan sees every number handed out: the mark never passes a write
 * still in flight. A slot gives its number back when it is released ({@link RequestSlots#release}). Any thread.
 */
final class WriteSequencer
{
    static final int SCAN_EVERY = 16;

    private final RequestSlot[] requestSlots;
    private final long writerId;
    private long next = 1;
    private long completedBelow = 1;
    private int sinceScan;

    WriteSequencer(final RequestSlot[] requestSlots)
    {
        this(requestSlots, randomWriterId());
    }

    WriteSequencer(final RequestSlot[] requestSlots, final long writerId)
    {
        if (writerId == 0)
        {
            throw new IllegalArgumentException("writer id 0 means none");
        }
        this.requestSlots = requestSlots;
        this.writerId = writerId;
    }

    long writerId()
    {
        return writerId;
    }

    /**
     * The slot's write number, taken at its first send and kept for its retries; also sets the slot's
     * {@link RequestSlot#writeCompletedBelow} to the mark to send with it.
     */
    synchronized long number(final RequestSlot requestSlot)
    {
        if (requestSlot.writeSequence == 0)
        {
            requestSlot.writeSequence = next++;
            if (++sinceScan >= SCAN_EVERY)
            {
                sinceScan = 0;
                completedBelow = scan();
            }
        }
        requestSlot.writeCompletedBelow = completedBelow;
        return requestSlot.writeSequence;
    }

    /** The mark as of the last scan (never past a write in flight). */
    synchronized long completedBelow()
    {
        return completedBelow;
    }

    private long scan()
    {
        long lowest = next;
        for (final RequestSlot s : requestSlots)
        {
            final long n = s.writeSequence;
            if (n != 0 && n < lowest)
            {
                lowest = n;
            }
        }
        return lowest;
    }

    private static long randomWriterId()
    {
        final SecureRandom random = new SecureRandom();
        long id;
        do
        {
            id = random.nextLong();
        }
        while (id == 0);
        return id;
    }
}
