package io.rdmakv.client.internal;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.util.function.Consumer;

/**
 * Requests whose post the transport back-pressured, waiting for the {@link ClientConductor} to try again on a later
 * duty cycle. Both protocols hand work over through it ({@link #defer}, any thread) and the conductor drains it on the
 * progress thread; neither protocol needs the conductor itself.
 */
final class DeferredPosts
{
    /** Post the slot's current step of one-sided reads again. */
    static final int POST_READS = 1;
    /** Send the slot's request again. */
    static final int SEND = 2;

    /** Each slot is deferred at most once at a time, so the slot count bounds the queue. */
    private final ManyToOneConcurrentArrayQueue<RequestSlot> deferred;
    /** Wakes the progress thread after a deferral from another thread (the progress's {@code signal}). */
    private volatile Runnable wakeUp = () -> { };

    DeferredPosts(final int requestSlotCount)
    {
        this.deferred = new ManyToOneConcurrentArrayQueue<>(Math.max(2, requestSlotCount));
    }

    /** The progress thread's wake-up, once it runs (a deferral before that is drained by its first duty cycle). */
    void wakeUpWith(final Runnable wakeUp)
    {
        this.wakeUp = wakeUp;
    }

    /** Retry {@code action} ({@link #POST_READS} or {@link #SEND}) of {@code requestSlot} on a later duty cycle. Any thread. */
    void defer(final RequestSlot requestSlot, final int action)
    {
        requestSlot.deferredAction = action;
        while (!deferred.offer(requestSlot))
        {
            // Cannot happen while each slot is deferred at most once; spin rather than lose a request.
            Thread.onSpinWait();
        }
        wakeUp.run();
    }

    /** Hand the slots deferred so far (not those deferred meanwhile) to {@code retry}; the progress thread only. */
    int drain(final Consumer<RequestSlot> retry)
    {
        int drained = 0;
        for (int i = deferred.size(); i > 0; i--)
        {
            final RequestSlot requestSlot = deferred.poll();
            if (requestSlot == null)
            {
                break;
            }
            drained++;
            retry.accept(requestSlot);
        }
        return drained;
    }
}
