package io.rdmakv.transport.base;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;

/**
 * The operations of one endpoint, under one short lock ({@link #lock()}) that any thread may take: request ids, pooled
 * operations and their deadlines here; the {@link Credits}, the {@link PendingOperations} queue and the
 * {@link InflightTable} by request id beside. The transport decides what "posting" means; the window keeps the books.
 * <pre>
 *   send / read (any thread), under lock():
 *     admitLocked(lifecycle): connected? else NOT_CONNECTED (CLOSED once closed locally)
 *                    credits and pending queue both full? -> BACK_PRESSURED
 *     acquire():     an operation from the pool, the next request id, deadline = clock + timeout
 *     mayPost()?     credits().take(op) [+ inflight().track(op) when its answer is matched by id] -> posted
 *     else           pending().add(op) -> pending().poll() in order as credits come back
 *   answer by id:    inflight().take(id) -> null when completed already (timed out, failed): a late answer is dropped
 *   complete(op):    credit back, op cleared and pooled, then its handler (outside the lock)
 *   expire / takeAll (progress or closing thread): out of the table and the queue, each completed once
 * </pre>
 * Request ids grow without reuse (a pooled operation gets a new id each time), so a late answer for an id that
 * expired can never complete another operation. Methods named {@code ...Locked}, and every method of the three parts,
 * require {@link #lock()}; the others take it themselves.
 */
public final class OperationWindow<O extends Operation>
{
    private static final Logger LOG = LoggerFactory.getLogger(OperationWindow.class);

    private final Object lock = new Object();
    private final Supplier<O> factory;
    private final long timeoutNanos;
    private final NanoClock clock;

    private final Credits credits;
    private final PendingOperations<O> pending;
    private final InflightTable<O> inflight = new InflightTable<>();
    private final ArrayDeque<O> free = new ArrayDeque<>();
    private final ArrayList<O> scratch = new ArrayList<>();
    private long nextRequestId;

    /**
     * @param factory      makes a new operation while the pool is still filling.
     * @param maxInflight  credits: operations posted and not yet completed.
     * @param maxPending   operations that may wait for a credit before {@link #admitLocked} is BACK_PRESSURED.
     * @param timeoutNanos how long an operation may take from its acquisition to its completion.
     * @param clock        the clock deadlines are on ({@code SystemNanoClock.INSTANCE}; tests inject their own).
     */
    public OperationWindow(final Supplier<O> factory, final int maxInflight, final int maxPending,
        final long timeoutNanos, final NanoClock clock)
    {
        this.factory = factory;
        this.timeoutNanos = timeoutNanos;
        this.clock = clock;
        this.credits = new Credits(maxInflight);
        this.pending = new PendingOperations<>(maxPending);
    }

    /** The lock every {@code ...Locked} method and the three parts need; a transport may hold it around its posting. */
    public Object lock()
    {
        return lock;
    }

    public Credits credits()
    {
        return credits;
    }

    public PendingOperations<O> pending()
    {
        return pending;
    }

    public InflightTable<O> inflight()
    {
        return inflight;
    }

    // ---------------------------------------------------------------- admitting and posting (under lock)

    /**
     * 0 when a new operation is admitted: the endpoint is connected ({@code lifecycle}) and a credit or room in the
     * pending queue is free; else the negative sentinel to return.
     */
    public long admitLocked(final EndpointLifecycle lifecycle)
    {
        final long refused = lifecycle.refusalSentinel();
        if (refused < 0)
        {
            return refused;
        }
        return !credits.available() && pending.isFull() ? TransportStatus.BACK_PRESSURED.sentinel() : 0;
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

    /** A credit is free and nothing waits before it: post now rather than queue. */
    public boolean mayPostLocked()
    {
        return credits.available() && pending.isEmpty();
    }

    /** Take a credit for an operation nobody will complete (a send without a handler), and pool it now. */
    public void creditAnonymousLocked(final O op)
    {
        credits.takeAnonymous();
        recycleLocked(op);
    }

    /**
     * The next request id and a credit for a send nobody waits for that is posted at once (when
     * {@link #mayPostLocked()}): the same books as {@link #acquireLocked} then {@link #creditAnonymousLocked}, without
     * the pooled operation or its deadline (a clock read), which nothing would look at.
     */
    public long postAnonymousLocked()
    {
        credits.takeAnonymous();
        return nextRequestId++;
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
            credits.release(op);
            recycleLocked(op);
        }
        Callbacks.complete(h, status, id);
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
            return takeExpired(inflight.iterator(), nowNanos, out) + takeExpired(pending.iterator(), nowNanos, out);
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

    /** Take every in-flight and pending operation into {@code out}, in-flight first, each with {@code status}. */
    public int takeAll(final TransportStatus status, final Collection<? super O> out)
    {
        synchronized (lock)
        {
            final int before = out.size();
            for (final Iterator<O> it = inflight.iterator(); it.hasNext(); )
            {
                final O op = it.next();
                op.status = status;
                out.add(op);
            }
            inflight.clear();
            O op;
            while ((op = pending.poll()) != null)
            {
                op.status = status;
                out.add(op);
            }
            return out.size() - before;
        }
    }

    /** Operations holding a credit or waiting for one. */
    public int outstanding()
    {
        synchronized (lock)
        {
            return credits.used() + pending.size();
        }
    }
}
