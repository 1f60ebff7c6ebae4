package io.rdmakv.transport.base;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.TransportStatus;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The operations of one endpoint, under one short lock ({@link #lock()}) that any thread
 * may take: request ids, credits, the bounded pending queue, the in-flight table (request id to operation), pooled
 * operations and their deadlines. The transport decides what "posting" means; the window keeps the books.
 * <pre>
 *   send / read (any thread), under lock():
 *     (the endpoint's EndpointLifecycle refused it unless connected)
 *     admit():       credits and pending queue both full? -> BACK_PRESSURED
 *     acquire():     an operation from the pool, the next request id, deadline = clock + timeout
 *     mayPost()?     credit(op) [+ track(op) when its answer is matched by id] -> the transport posts it
 *     else           enqueue(op) -> pollPending() in order as credits come back
 *   answer by id:    take(id) -> null when completed already (timed out, failed): a late answer is dropped
 *   complete(op):    credit back, op cleared and pooled, then its handler (outside the lock)
 *   expire / takeAll (progress or closing thread): out of the table and the queue, each completed once
 * </pre>
 * Request ids grow without reuse (a pooled operation gets a new id each time), so a late answer for an id that
 * expired can never complete another operation. Methods named {@code ...Locked} require {@link #lock()}; the others
 * take it themselves.
 */
public final class OperationWindow<O extends Operation>
{
    private static final Logger LOG = LoggerFactory.getLogger(OperationWindow.class);

    private final Object lock = new Object();
    private final Supplier<O> factory;
    private final int maxInflight;
    private final int maxPending;
    private final long timeoutNanos;
    private final NanoClock clock;

    private final Long2ObjectHashMap<O> inflight = new Long2ObjectHashMap<>();
    private final ArrayDeque<O> pending = new ArrayDeque<>();
    private final ArrayDeque<O> free = new ArrayDeque<>();
    private final ArrayList<O> scratch = new ArrayList<>();
    private int credited;
    private long nextRequestId;

    /**
     * @param factory      makes a new operation while the pool is still filling.
     * @param maxInflight  credits: operations posted and not yet completed.
     * @param maxPending   operations that may wait for a credit before {@link #admitLocked()} is BACK_PRESSURED.
     * @param timeoutNanos how long an operation may take from its acquisition to its completion.
     * @param clock        the clock deadlines are on ({@code SystemNanoClock.INSTANCE}; tests inject their own).
     */
    public OperationWindow(final Supplier<O> factory, final int maxInflight, final int maxPending,
        final long timeoutNanos, final NanoClock clock)
    {
        this.factory = factory;
        this.maxInflight = maxInflight;
        this.maxPending = maxPending;
        this.timeoutNanos = timeoutNanos;
        this.clock = clock;
    }

    /** The lock every {@code ...Locked} method needs; a transport may hold it around its own posting too. */
    public Object lock()
    {
        return lock;
    }

    /** The clock deadlines are on. */
    public NanoClock clock()
    {
        return clock;
    }

    // ---------------------------------------------------------------- admitting and posting (under lock)

    /**
     * 0 when a new operation fits (a credit or room in the pending queue), else BACK_PRESSURED's sentinel. Whether
     * the endpoint admits operations at all is its {@link EndpointLifecycle}'s to say, asked first.
     */
    public long admitLocked()
    {
        if (credited >= maxInflight && pending.size() >= maxPending)
        {
            return TransportStatus.BACK_PRESSURED.sentinel();
        }
        return 0;
    }

    /** A pooled operation with the next request id and its deadline. */
    public O acquireLocked(final CompletionHandler handler)
    {
        return acquireLocked(nextRequestId++, handler);
    }

    /**
     * The next request id, for an operation the transport posts at once without a pooled object (verbs: its
     * send-queue ring keeps the id); {@link #acquireLocked(long, CompletionHandler)} turns it into one if it must wait.
     */
    public long nextRequestIdLocked()
    {
        return nextRequestId++;
    }

    /** Give back an id from {@link #nextRequestIdLocked()} that was refused before anything used it. */
    public void unissueLocked(final long requestId)
    {
        if (requestId == nextRequestId - 1)
        {
            nextRequestId--;
        }
    }

    /** A pooled operation with an id issued earlier by {@link #nextRequestIdLocked()}, and its deadline. */
    public O acquireLocked(final long requestId, final CompletionHandler handler)
    {
        O op = free.pollFirst();
        if (op == null)
        {
            op = factory.get();
        }
        op.requestId = requestId;
        op.handler = handler;
        op.status = null;
        op.credited = false;
        op.live = true;
        op.deadlineNanos = clock.nanoTime() + timeoutNanos;
        return op;
    }

    /** Give back an operation acquired but then refused (never posted nor queued); its id is reused when last. */
    public void refuseLocked(final O op)
    {
        unissueLocked(op.requestId);
        recycleLocked(op);
    }

    /** A credit is free and nothing waits before it: post now rather than queue. */
    public boolean mayPostLocked()
    {
        return credited < maxInflight && pending.isEmpty();
    }

    /** A credit is free (for promoting pending operations). */
    public boolean hasCreditLocked()
    {
        return credited < maxInflight;
    }

    /** The operation holds a credit from now until it is completed. */
    public void creditLocked(final O op)
    {
        op.credited = true;
        credited++;
    }

    /** {@code count} credits taken without an operation object (sends nobody waits for) come back. */
    public void returnCreditsLocked(final int count)
    {
        credited -= count;
    }

    /** Take a credit for an operation nobody will complete (a send without a handler), and pool it now. */
    public void creditAnonymousLocked(final O op)
    {
        credited++;
        recycleLocked(op);
    }

    /**
     * The next request id and a credit for a send nobody waits for that is posted at once (when
     * {@link #mayPostLocked()}): the same books as {@link #acquireLocked} then {@link #creditAnonymousLocked}, without
     * the pooled operation or its deadline (a clock read), which nothing would look at.
     */
    public long postAnonymousLocked()
    {
        credited++;
        return nextRequestId++;
    }

    /** Put an admitted operation in the in-flight table, where its answer finds it by id ({@link #takeLocked}). */
    public void trackLocked(final O op)
    {
        inflight.put(op.requestId, op);
    }

    /** Queue an admitted operation behind the others (bounded by {@link #admitLocked()}). */
    public void enqueueLocked(final O op)
    {
        pending.addLast(op);
    }

    /** Queue an operation unless the pending queue is full (for transports that count their own credits). */
    public boolean offerPendingLocked(final O op)
    {
        if (pending.size() >= maxPending)
        {
            return false;
        }
        pending.addLast(op);
        return true;
    }

    /** The pending queue holds {@code maxPending} operations: the next one to wait is refused. */
    public boolean pendingFullLocked()
    {
        return pending.size() >= maxPending;
    }

    public O peekPendingLocked()
    {
        return pending.peekFirst();
    }

    public O pollPendingLocked()
    {
        return pending.pollFirst();
    }

    public boolean hasPendingLocked()
    {
        return !pending.isEmpty();
    }

    public int pendingCountLocked()
    {
        return pending.size();
    }

    /** Take an operation out of the in-flight table; {@code null} when it was completed already. */
    public O takeLocked(final long requestId)
    {
        return inflight.remove(requestId);
    }

    /** Take every in-flight operation {@code filter} accepts into {@code out}; returns how many. */
    public int takeInflightLocked(final Predicate<O> filter, final Collection<? super O> out)
    {
        int n = 0;
        for (final Iterator<O> it = inflight.values().iterator(); it.hasNext(); )
        {
            final O op = it.next();
            if (filter.test(op))
            {
                it.remove();
                out.add(op);
                n++;
            }
        }
        return n;
    }

    /** Operations in the in-flight table. */
    public int trackedCountLocked()
    {
        return inflight.size();
    }

    /** Clear an operation and return it to the pool without completing it (its handler is not called). */
    public void recycleLocked(final O op)
    {
        op.clear();
        op.handler = null;
        op.status = null;
        op.credited = false;
        op.live = false;
        free.addLast(op);
    }

    // ---------------------------------------------------------------- completing (take the lock themselves)

    /** Complete a taken operation: its credit comes back, it is cleared and pooled, then its handler runs. */
    public void complete(final O op)
    {
        final CompletionHandler h;
        final TransportStatus status;
        final long id;
        synchronized (lock)
        {
            if (!op.live)
            {
                LOG.error("operation {} completed twice; this is a bug", op.requestId);
                return;
            }
            h = op.handler;
            status = op.status;
            id = op.requestId;
            if (op.credited)
            {
                credited--;
            }
            recycleLocked(op);
        }
        Callbacks.complete(h, status, id);
    }

    /**
     * Take every in-flight or pending operation past its deadline at {@code nowNanos} into {@code out}, its status
     * TIMED_OUT, for the caller to complete; returns how many.
     */
    public int takeExpired(final long nowNanos, final Collection<? super O> out)
    {
        synchronized (lock)
        {
            if (inflight.isEmpty() && pending.isEmpty())
            {
                return 0;
            }
            return takeExpired(inflight.values().iterator(), nowNanos, out) +
                takeExpired(pending.iterator(), nowNanos, out);
        }
    }

    private static <O extends Operation> int takeExpired(final Iterator<O> it, final long nowNanos,
        final Collection<? super O> out)
    {
        int n = 0;
        while (it.hasNext())
        {
            final O op = it.next();
            if (op.deadlineNanos - nowNanos <= 0)
            {
                it.remove();
                op.status = TransportStatus.TIMED_OUT;
                out.add(op);
                n++;
            }
        }
        return n;
    }

    /** Complete every operation past its deadline with TIMED_OUT (progress thread only); returns how many. */
    public int expire(final long nowNanos)
    {
        scratch.clear();
        final int n = takeExpired(nowNanos, scratch);
        completeAll(scratch);
        return n;
    }

    /** Whether the oldest pending operation is past its deadline (for transports that fail whole endpoints). */
    public boolean pendingHeadExpired(final long nowNanos)
    {
        synchronized (lock)
        {
            final O head = pending.peekFirst();
            return head != null && head.deadlineNanos - nowNanos <= 0;
        }
    }

    /** Take every in-flight and pending operation into {@code out}, in-flight first, each with {@code status}. */
    public int takeAll(final TransportStatus status, final Collection<? super O> out)
    {
        synchronized (lock)
        {
            final int before = out.size();
            for (final O op : inflight.values())
            {
                op.status = status;
                out.add(op);
            }
            inflight.clear();
            while (!pending.isEmpty())
            {
                final O op = pending.pollFirst();
                op.status = status;
                out.add(op);
            }
            return out.size() - before;
        }
    }

    /** Complete every in-flight and pending operation with {@code status}; returns how many. */
    public int failAll(final TransportStatus status)
    {
        final ArrayList<O> taken = new ArrayList<>(); // rare, and maybe on a closing thread beside the progress one
        final int n = takeAll(status, taken);
        completeAll(taken);
        return n;
    }

    /** Complete each taken operation of {@code ops}, in order, and clear the list. */
    public void completeAll(final List<O> ops)
    {
        final int n = ops.size();
        for (int i = 0; i < n; i++)
        {
            complete(ops.get(i));
        }
        ops.clear();
    }

    /** Operations holding a credit or waiting for one. */
    public int outstanding()
    {
        synchronized (lock)
        {
            return credited + pending.size();
        }
    }
}
