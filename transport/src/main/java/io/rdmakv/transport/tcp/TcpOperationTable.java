package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;

/**
 * The send/credit side of one {@link TcpEndpoint}: its connection state and its operations, under one short lock
 * that any thread may take. It owns the credit count, the in-flight table (correlation id to operation), the bounded
 * pending queue and the free list of pooled {@link TcpOperation}s, and hands posted frames to the endpoint's
 * {@link TcpOutbound}.
 * <pre>
 *   postSend / postRead (any thread)
 *     admit: state CONNECTED? else NOT_CONNECTED (CLOSED once closed locally)
 *            credits and pending queue both full? -> BACK_PRESSURED
 *     acquire: an operation from the free list (new only while the list is still filling), next request id, deadline
 *     submit:  a credit free and nothing pending -> post: credit taken, frame -> TcpOutbound
 *                                                         tracked in the in-flight table by id
 *                                                         (a send nobody waits for: counted only, recycled at once)
 *              else -> pending queue (keeps its frame) -> posted in order as credits come back (promotePending)
 *   complete(op): credit back (if it held one), frame released if never written, op -> free list, then its handler
 *   expire / failAll (worker or closing thread): take operations out of the table and the queue, complete each
 * </pre>
 * Whoever takes an operation out of the in-flight table owns it until {@link #complete} recycles it.
 */
final class TcpOperationTable
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpOperationTable.class);

    private enum State
    {
        CONNECTING, CONNECTED, DOWN
    }

    private final TcpOutbound outbound;
    private final ByteBufAllocator alloc;
    private final int maxInflight;
    private final int maxPending;
    private final long timeoutNanos;

    private final Object lock = new Object();
    private final Long2ObjectHashMap<TcpOperation> inflight = new Long2ObjectHashMap<>();
    private final ArrayDeque<TcpOperation> pending = new ArrayDeque<>();
    private final ArrayDeque<TcpOperation> free = new ArrayDeque<>();
    private int inflightCount;
    private long nextRequestId;
    private State state = State.CONNECTING;
    private boolean closedLocally;

    /** Worker (or closing) thread: operations taken out to be completed. */
    private final ArrayList<TcpOperation> expired = new ArrayList<>();

    /**
     * @param outbound     where posted frames go.
     * @param alloc        allocates read request frames.
     * @param maxInflight  credits: operations posted and not yet completed.
     * @param maxPending   operations that may wait for a credit before a post is BACK_PRESSURED.
     * @param timeoutNanos how long an operation may take from its post to its completion.
     */
    TcpOperationTable(final TcpOutbound outbound, final ByteBufAllocator alloc, final int maxInflight,
        final int maxPending, final long timeoutNanos)
    {
        this.outbound = outbound;
        this.alloc = alloc;
        this.maxInflight = maxInflight;
        this.maxPending = maxPending;
        this.timeoutNanos = timeoutNanos;
    }

    // ---------------------------------------------------------------- posting (any thread)

    /** Post a MESSAGE frame (ownership passes, released when refused); the request id or a negative sentinel. */
    long postSend(final ByteBuf frame, final CompletionHandler handler)
    {
        final long id;
        final boolean schedule;
        synchronized (lock)
        {
            final long result = admit();
            if (result < 0)
            {
                frame.release();
                return result;
            }
            final TcpOperation op = acquire(handler);
            op.isSend = true;
            op.frame = frame;
            id = op.requestId;
            schedule = submit(op);
        }
        if (schedule)
        {
            outbound.schedule();
        }
        return id;
    }

    /** Post an emulated read (arguments checked by the caller); the request id or a negative sentinel. */
    long postRead(
        final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
    {
        final long id;
        final boolean schedule;
        synchronized (lock)
        {
            final long result = admit();
            if (result < 0)
            {
                return result;
            }
            final TcpOperation op = acquire(handler);
            op.isSend = false;
            op.destination = destination;
            op.destinationOffset = destinationOffset;
            op.length = length;
            op.frame = TcpFrames.readRequestFrame(alloc, op.requestId, remoteKey.nativeKey(), length,
                remoteKey.token(), remoteAddress);
            id = op.requestId;
            schedule = submit(op);
        }
        if (schedule)
        {
            outbound.schedule();
        }
        return id;
    }

    /** Under lock: 0 when a new operation may be accepted, else a negative sentinel. */
    private long admit()
    {
        if (state != State.CONNECTED)
        {
            return refusedStatusLocked().sentinel();
        }
        if (inflightCount >= maxInflight && pending.size() >= maxPending)
        {
            return TransportStatus.BACK_PRESSURED.sentinel();
        }
        return 0;
    }

    private TcpOperation acquire(final CompletionHandler handler)
    {
        TcpOperation op = free.pollFirst();
        if (op == null)
        {
            op = new TcpOperation();
        }
        op.requestId = nextRequestId++;
        op.handler = handler;
        op.deadlineNanos = System.nanoTime() + timeoutNanos;
        return op;
    }

    /** Under lock: post now or queue as pending; true when the caller must schedule the write task. */
    private boolean submit(final TcpOperation op)
    {
        if (inflightCount < maxInflight && pending.isEmpty())
        {
            return post(op);
        }
        pending.addLast(op);
        return false;
    }

    /**
     * Under lock: take a credit and queue the frame for the write task; true when this post starts a batch (the
     * caller schedules the task once the lock is released).
     */
    private boolean post(final TcpOperation op)
    {
        inflightCount++;
        final ByteBuf frame = op.frame;
        op.frame = null;
        if (op.isSend && op.handler == null)
        {
            // Nobody waits for this send: only its credit is tracked, by count, until its batch is written.
            op.reset();
            free.addLast(op);
            return outbound.add(frame, TcpOutbound.ANONYMOUS_SEND);
        }
        op.counted = true;
        inflight.put(op.requestId, op);
        // A send completes locally once written; a read completes with its response.
        return outbound.add(frame, op.isSend ? op.requestId : TcpOutbound.NOT_A_SEND);
    }

    /** Post pending operations while credits are free (any thread; the write task is scheduled outside the lock). */
    void promotePending()
    {
        boolean schedule = false;
        synchronized (lock)
        {
            while (state == State.CONNECTED && inflightCount < maxInflight && !pending.isEmpty())
            {
                schedule |= post(pending.pollFirst());
            }
        }
        if (schedule)
        {
            outbound.schedule();
        }
    }

    /** Event loop: {@code count} sends nobody waits for were written (or failed): return their credits. */
    void onAnonymousWritten(final int count)
    {
        synchronized (lock)
        {
            inflightCount -= count;
        }
        promotePending();
    }

    // ---------------------------------------------------------------- completing

    /**
     * Event loop: a tracked send's frame was written (or failed to be); the operation, its status set, for the caller
     * to publish, or {@code null} when it was completed already (timed out, failed).
     */
    TcpOperation takeWritten(final long id, final boolean success)
    {
        final TcpOperation op;
        final boolean local;
        synchronized (lock)
        {
            op = inflight.remove(id);
            local = closedLocally;
        }
        if (op != null)
        {
            op.status = success ? TransportStatus.OK : local ? TransportStatus.CLOSED : TransportStatus.PEER_FAILED;
        }
        return op;
    }

    /** Take an operation out of the in-flight table; {@code null} when it was completed already. */
    TcpOperation take(final long correlationId)
    {
        synchronized (lock)
        {
            return inflight.remove(correlationId);
        }
    }

    /** Deliver a taken operation's completion: its credit comes back, it is recycled, then its handler runs. */
    void complete(final TcpOperation op)
    {
        final CompletionHandler h = op.handler;
        final TransportStatus status = op.status;
        final long id = op.requestId;
        synchronized (lock)
        {
            if (op.counted)
            {
                inflightCount--;
            }
            if (op.frame != null)
            {
                op.frame.release();
            }
            op.reset();
            free.addLast(op);
        }
        if (h != null)
        {
            try
            {
                h.onComplete(status, id);
            }
            catch (final Throwable t)
            {
                LOG.error("completion handler threw", t);
            }
        }
    }

    /** Complete every in-flight and pending operation with {@code status} (worker thread or closing thread). */
    void failAll(final TransportStatus status)
    {
        expired.clear();
        synchronized (lock)
        {
            inflight.values().forEach(expired::add);
            inflight.clear();
            expired.addAll(pending);
            pending.clear();
        }
        final int dropped = outbound.releaseQueued();
        if (dropped > 0)
        {
            synchronized (lock)
            {
                inflightCount -= dropped; // never written: their credits come back here
            }
        }
        for (int i = 0; i < expired.size(); i++)
        {
            final TcpOperation op = expired.get(i);
            op.status = status;
            complete(op);
        }
        expired.clear();
    }

    /** Complete operations past their deadline with TIMED_OUT (worker thread); returns how many. */
    int expire(final long nowNanos)
    {
        expired.clear();
        synchronized (lock)
        {
            if (inflight.isEmpty() && pending.isEmpty())
            {
                return 0;
            }
            final Iterator<TcpOperation> it = inflight.values().iterator();
            while (it.hasNext())
            {
                final TcpOperation op = it.next();
                if (op.deadlineNanos - nowNanos <= 0)
                {
                    it.remove();
                    expired.add(op);
                }
            }
            final Iterator<TcpOperation> pit = pending.iterator();
            while (pit.hasNext())
            {
                final TcpOperation op = pit.next();
                if (op.deadlineNanos - nowNanos <= 0)
                {
                    pit.remove();
                    expired.add(op);
                }
            }
        }
        final int count = expired.size();
        for (int i = 0; i < count; i++)
        {
            final TcpOperation op = expired.get(i);
            op.status = TransportStatus.TIMED_OUT;
            complete(op);
        }
        expired.clear();
        if (count > 0)
        {
            promotePending();
        }
        return count;
    }

    /** Operations holding a credit or waiting for one. */
    int outstanding()
    {
        synchronized (lock)
        {
            return inflightCount + pending.size();
        }
    }

    // ---------------------------------------------------------------- connection state

    /** The channel became active: operations are admitted from now on (unless it went down or was closed first). */
    void markActive()
    {
        synchronized (lock)
        {
            if (state == State.CONNECTING)
            {
                state = State.CONNECTED;
            }
        }
    }

    /** The channel is gone: no operation is admitted or promoted any more. */
    void markDown()
    {
        synchronized (lock)
        {
            state = State.DOWN;
        }
    }

    /** The application closed the endpoint; false when it had done so already. */
    boolean markClosedLocally()
    {
        synchronized (lock)
        {
            if (closedLocally)
            {
                return false;
            }
            closedLocally = true;
            return true;
        }
    }

    /** The worker closes: closed locally and down at once. */
    void markClosedAndDown()
    {
        synchronized (lock)
        {
            closedLocally = true;
            state = State.DOWN;
        }
    }

    boolean isConnected()
    {
        synchronized (lock)
        {
            return state == State.CONNECTED;
        }
    }

    boolean isClosedLocally()
    {
        synchronized (lock)
        {
            return closedLocally;
        }
    }

    /** Why an operation is refused on an endpoint that is not connected. */
    TransportStatus refusedStatus()
    {
        synchronized (lock)
        {
            return refusedStatusLocked();
        }
    }

    private TransportStatus refusedStatusLocked()
    {
        return closedLocally ? TransportStatus.CLOSED : TransportStatus.NOT_CONNECTED;
    }
}
