package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The bounded queue of asynchronous requests waiting for an in-flight slot, and the one thread that starts them, so
 * an async call never blocks its caller:
 *
 * <pre>
 *   caller ──► queue idle and a slot free and the node connected ? ──► start on the caller's thread (fast path)
 *        └───► else offer: room ? queued (FIFO) : the future fails at once with KvBackPressureException
 *   rdmakv-client-queue thread:  head expired (deadline fixed at the call) ? fail TIMED_OUT
 *                                : a slot free ? start it (may connect: this thread may block, callers never do)
 *                                : park until a slot is released or the head's deadline passes
 * </pre>
 * {@link #pending()} counts requests queued or being started by the thread, so a caller takes the fast path only
 * when nothing queued before it is still waiting: requests of one thread start in call order.
 */
final class RequestQueue implements AutoCloseable
{
    /** Starts a queued request if a slot is free. */
    interface Starter
    {
        /**
         * @return false when no slot was free (nothing was done); true when the request was started or failed.
         */
        boolean tryStart(AsyncCall<?> call);
    }

    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final int capacity;
    private final ManyToOneConcurrentArrayQueue<AsyncCall<?>> queue;
    private final AtomicInteger pending = new AtomicInteger();
    private final Starter starter;
    private final ClientCounters counters;
    private final Thread thread;
    private volatile boolean waitingForRequestSlot;
    private volatile boolean closed;
    /** The thread has polled for the last time (under this object's lock): late offers drain themselves. */
    private boolean finished;

    RequestQueue(final int capacity, final Starter starter, final ClientCounters counters, final String threadName)
    {
        this.capacity = capacity;
        this.queue = new ManyToOneConcurrentArrayQueue<>(Math.max(2, capacity));
        this.starter = starter;
        this.counters = counters;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    int capacity()
    {
        return capacity;
    }

    /** Requests queued or being started by the queue's thread. */
    int pending()
    {
        return pending.get();
    }

    /**
     * Queue {@code call}, or fail it at once with {@link KvError#BACK_PRESSURE} when the queue is full. Never blocks.
     *
     * @return whether it was queued.
     */
    boolean offer(final AsyncCall<?> call)
    {
        if (!reserve())
        {
            counters.increment(ClientCounter.FAILURES);
            counters.increment(ClientCounter.QUEUE_FULL_REJECTIONS);
            call.fail(KvException.of(KvError.BACK_PRESSURE, "request queue full: " + capacity + " requests wait " +
                "for a free in-flight slot (raise maxQueuedRequests or maxInFlight, or wait for outstanding futures)"));
            return false;
        }
        enqueue(call);
        return true;
    }

    /**
     * Queue {@code call}, waiting for room until {@code deadlineNanos} (for synchronous callers such as multiGet);
     * past it the call fails with {@link KvError#TIMED_OUT}.
     */
    void offerWaiting(final AsyncCall<?> call, final long deadlineNanos)
    {
        while (!reserve())
        {
            if (closed)
            {
                call.fail(KvException.of(KvError.CLOSED, "the client is closed"));
                return;
            }
            if (System.nanoTime() - deadlineNanos > 0)
            {
                counters.increment(ClientCounter.FAILURES);
                counters.increment(ClientCounter.TIMEOUTS);
                call.fail(KvException.of(KvError.TIMED_OUT, "the request queue stayed full until the deadline"));
                return;
            }
            LockSupport.parkNanos(50_000);
        }
        enqueue(call);
    }

    /** A slot was released: wake the queue's thread if it waits for one. Any thread; cheap when nobody waits. */
    void requestSlotReleased()
    {
        if (waitingForRequestSlot)
        {
            LockSupport.unpark(thread);
        }
    }

    private boolean reserve()
    {
        if (pending.incrementAndGet() > capacity || closed)
        {
            pending.decrementAndGet();
            return false;
        }
        return true;
    }

    private void enqueue(final AsyncCall<?> call)
    {
        counters.increment(ClientCounter.QUEUED_REQUESTS);
        while (!queue.offer(call))
        {
            Thread.onSpinWait(); // cannot happen: the queue's capacity is at least the reserved count
        }
        LockSupport.unpark(thread);
        if (closed)
        {
            synchronized (this)
            {
                if (finished)
                {
                    drain(); // raced with close() after the thread's last poll: nobody else will fail it
                }
            }
        }
    }

    private void run()
    {
        while (!closed)
        {
            final AsyncCall<?> head = queue.peek();
            if (head == null)
            {
                LockSupport.park(this);
                continue;
            }
            final long now = System.nanoTime();
            if (now - head.deadlineNanos > 0)
            {
                queue.poll();
                pending.decrementAndGet(); // before the caller can see the failure: it is no longer queued
                counters.increment(ClientCounter.FAILURES);
                counters.increment(ClientCounter.TIMEOUTS);
                head.fail(KvException.of(KvError.TIMED_OUT, "request waited in the client's queue until its " +
                    "deadline: every in-flight slot stayed busy (is the node answering?)"));
                continue;
            }
            waitingForRequestSlot = true;
            final boolean started;
            try
            {
                started = starter.tryStart(head);
            }
            catch (final RuntimeException ex)
            {
                waitingForRequestSlot = false;
                queue.poll();
                pending.decrementAndGet();
                head.fail(ex);
                continue;
            }
            if (started)
            {
                waitingForRequestSlot = false;
                queue.poll();
                pending.decrementAndGet();
            }
            else
            {
                LockSupport.parkNanos(this, Math.min(MAX_PARK_NANOS, head.deadlineNanos - now));
                waitingForRequestSlot = false;
            }
        }
        synchronized (this)
        {
            drain();
            finished = true;
        }
    }

    /**
     * Fail every queued request with CLOSED: the queue's thread as it ends, or a late offer after that (both under
     * this object's lock, so the queue keeps one consumer at a time).
     */
    private void drain()
    {
        AsyncCall<?> call;
        while ((call = queue.poll()) != null)
        {
            pending.decrementAndGet();
            call.fail(KvException.of(KvError.CLOSED, "the client was closed"));
        }
    }

    /**
     * Stop the thread, which fails what still waits with {@link KvError#CLOSED} (a start in progress, such as a
     * connect, is interrupted).
     */
    @Override
    public void close()
    {
        closed = true;
        thread.interrupt();
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
