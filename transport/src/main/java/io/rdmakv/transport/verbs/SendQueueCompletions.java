package io.rdmakv.transport.verbs;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.base.Callbacks;

import java.util.ArrayList;
import java.util.List;

/**
 * Completes one endpoint's outstanding operations: those on the send queue, in posting order, and those still waiting
 * in the {@link PendingQueue}. RC completes send-queue work requests in order, so a signaled completion for slot
 * {@code s} completes every slot from the ring's head up to {@code s}; a read's data is copied from the bounce area
 * to the caller's buffer then. When the endpoint fails or closes, everything outstanding completes with that status
 * (the operation an error completion named, with its own); the oldest operation's age decides the operation timeout.
 *
 * <pre>
 *   ring:  head [read][send][credit][send*] ...     * = the signaled slot the completion names
 *          pop head..slot: tracked ones (reads, last fragments with a handler) collected, bounce copied
 *   then, outside the endpoint's lock: run the collected handlers with OK
 * </pre>
 *
 * <p>Worker thread; the collecting and draining calls run under the endpoint's lock, the callbacks after it.
 */
final class SendQueueCompletions
{
    private final EndpointResources res;
    private final SendQueueRing ring;
    private final PendingQueue pending;
    private final SendPath sendPath;
    private final CompletionHandler[] doneHandlers;
    private final long[] doneIds;
    private int done;

    SendQueueCompletions(final EndpointResources res, final SendQueueRing ring,
        final PendingQueue pending, final SendPath sendPath)
    {
        this.res = res;
        this.ring = ring;
        this.pending = pending;
        this.sendPath = sendPath;
        this.doneHandlers = new CompletionHandler[ring.capacity];
        this.doneIds = new long[ring.capacity];
    }

    /**
     * Pop every slot up to {@code sendSlot}, copying read results out of the bounce area and collecting the handlers to
     * call; the freed room is then used for what waits. Under the endpoint's lock.
     *
     * @return false when {@code sendSlot} is not posted (a stale completion): nothing changed.
     */
    boolean collectUpTo(final int sendSlot)
    {
        if (!ring.isPosted(sendSlot))
        {
            return false;
        }
        int index;
        do
        {
            index = ring.head();
            if (ring.tracked[index])
            {
                if (ring.kind[index] == SendQueueRing.KIND_READ)
                {
                    ring.destination[index].putBytes(ring.destinationOffset[index], res.bounceView,
                        ring.bounceOffset[index], ring.length[index]);
                }
                doneHandlers[done] = ring.handler[index];
                doneIds[done] = ring.requestId[index];
                done++;
            }
            ring.pop();
        }
        while (index != sendSlot);
        sendPath.untrack(done);
        sendPath.drainPending();
        sendPath.maybeReturnCredits();
        return true;
    }

    /** Call the handlers {@link #collectUpTo} gathered with OK. Outside the endpoint's lock. */
    void completeCollected()
    {
        final int count = done;
        done = 0;
        for (int k = 0; k < count; k++)
        {
            final CompletionHandler h = doneHandlers[k];
            doneHandlers[k] = null;
            complete(h, TransportStatus.OK, doneIds[k]);
        }
    }

    /**
     * Empty the ring and the pending queue; under the endpoint's lock.
     *
     * @return the callbacks that complete every outstanding operation with {@code status}, to run outside it.
     */
    List<Runnable> drainAll(final TransportStatus status)
    {
        return drainAll(status, -1, status);
    }

    /**
     * As {@link #drainAll(TransportStatus)}, but the operation in slot {@code failedSendSlot} (none when negative: the
     * one an error completion named) completes with {@code failedStatus}.
     */
    List<Runnable> drainAll(final TransportStatus status, final int failedSendSlot, final TransportStatus failedStatus)
    {
        final List<Runnable> callbacks = new ArrayList<>();
        while (ring.size() > 0)
        {
            final int index = ring.head();
            if (ring.tracked[index])
            {
                final CompletionHandler h = ring.handler[index];
                final long id = ring.requestId[index];
                final TransportStatus s = index == failedSendSlot ? failedStatus : status;
                callbacks.add(() -> complete(h, s, id));
            }
            ring.pop();
        }
        sendPath.clearTracked();
        while (!pending.isEmpty())
        {
            final PendingQueue.Op op = pending.peek();
            final CompletionHandler h = op.handler();
            final long id = op.requestId();
            callbacks.add(() -> complete(h, status, id));
            if (!op.isRead)
            {
                pending.discardHeadPayload();
            }
            pending.removeHead();
        }
        return callbacks;
    }

    /**
     * True when the oldest operation someone waits for on the send queue, or the head of the pending queue, is older
     * than {@code timeoutNanos}, or the pending queue's head past its deadline (a read drained from pending is stamped
     * when posted, so both are looked at). Under the endpoint's lock.
     */
    boolean oldestExpired(final long nowNanos, final long timeoutNanos)
    {
        if (sendPath.tracked() > 0)
        {
            for (int k = 0, index = ring.head(); k < ring.size(); k++, index = (index + 1) % ring.capacity)
            {
                if (ring.tracked[index])
                {
                    if (nowNanos - ring.postNanos[index] > timeoutNanos)
                    {
                        return true;
                    }
                    break;
                }
            }
        }
        return pending.headExpired(nowNanos);
    }

    private static void complete(final CompletionHandler h, final TransportStatus status, final long id)
    {
        Callbacks.complete(h, status, id);
    }
}
