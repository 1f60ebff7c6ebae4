package io.rdmakv.transport.verbs;

import io.rdmakv.transport.event.EventFdWakeup;

import java.util.ArrayList;
import java.util.List;

/**
 * A worker's side of {@link VerbsCounters}: its polls of the completion queue (plain fields, written by whoever
 * holds the worker's progress lock, i.e. its progress thread), the post-side counts of endpoints already gone (folded
 * in when the worker forgets one), and the system calls of its idle machinery (the completion channel's and the
 * eventfd's own counters). {@link #snapshot} adds the open endpoints' {@link PostCounts}, each read under its
 * endpoint's lock.
 */
final class WorkerCounters
{
    private final VerbsCompletionChannel channel;
    private final EventFdWakeup events;
    private final Object progressLock;
    private final List<VerbsEndpoint> open;
    private long polls;
    private long busyPolls;
    private long completions;
    private VerbsCounters retired = VerbsCounters.ZERO;

    /**
     * @param channel      and {@code events}: null with {@code verbs.idle=poll}.
     * @param progressLock the worker's, which guards {@code open} (its endpoints) and these counts.
     */
    WorkerCounters(final VerbsCompletionChannel channel, final EventFdWakeup events, final Object progressLock,
        final List<VerbsEndpoint> open)
    {
        this.channel = channel;
        this.events = events;
        this.progressLock = progressLock;
        this.open = open;
    }

    /** One ibv_poll_cq returned {@code n} completions. Under the progress lock. */
    void polled(final int n)
    {
        polls++;
        if (n > 0)
        {
            busyPolls++;
            completions += n;
        }
    }

    /** {@code ep} is gone: keep its counts. Under the progress lock. */
    void retire(final VerbsEndpoint ep)
    {
        synchronized (ep.lock())
        {
            retired = retired.plus(ep.sendPath.counts().snapshot());
        }
    }

    /**
     * The worker's counters now: its own and the open endpoints' list read under the progress lock, then each open
     * endpoint's counts under its own lock, outside the progress lock (no endpoint lock is ever taken under it here).
     * Any thread.
     */
    VerbsCounters snapshot()
    {
        final Pending begun;
        synchronized (progressLock)
        {
            begun = begin();
        }
        return begun.complete();
    }

    private Pending begin()
    {
        final long systemCalls = (channel == null ? 0 : channel.systemCalls()) +
            (events == null ? 0 : events.systemCalls());
        return new Pending(new ArrayList<>(open), retired.plus(new VerbsCounters(0, 0, 0, 0, 0, 0, 0, polls,
            busyPolls, completions, systemCalls)));
    }

    /** A snapshot begun under the progress lock: the open endpoints' counts still to add. */
    private record Pending(List<VerbsEndpoint> open, VerbsCounters worker)
    {
        VerbsCounters complete()
        {
            VerbsCounters total = worker;
            for (final VerbsEndpoint ep : open)
            {
                // An endpoint retired since begin() is counted here, not in worker's retired part (read before).
                synchronized (ep.lock())
                {
                    total = total.plus(ep.sendPath.counts().snapshot());
                }
            }
            return total;
        }
    }
}
