package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.base.EndpointLifecycle;
import io.rdmakv.transport.base.OperationWindow;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.util.ArrayList;

/**
 * The tcp wire of a {@link TcpEndpoint}'s {@link OperationWindow}: what posting an operation means here (its frame
 * joins the {@link TcpOutbound} queue) and how credits of written frames come back.
 * <pre>
 *   postSend / postRead (any thread), under the window's lock:
 *     admit, acquire (window) -> a credit free and nothing pending: post; else pending (keeps its frame)
 *     post:  credit taken, frame -> TcpOutbound (a send's bytes are framed straight into the batch's buffer; a
 *            pending send gets a frame of its own); tracked by id in the window
 *            (a send nobody waits for: counted only, pooled at once, its credit back when its batch is written)
 *   promotePending: posted in order as credits come back
 *   expire / failAll (worker or closing thread): the window takes them out, frames never written are released
 * </pre>
 * Whoever takes an operation out of the window owns it until the window completes it.
 */
final class TcpOperationTable
{
    private final OperationWindow<TcpOperation> window;
    private final EndpointLifecycle lifecycle;
    private final TcpOutbound outbound;
    private final ByteBufAllocator alloc;

    /**
     * @param window    the endpoint's operations.
     * @param lifecycle the endpoint's state: operations are admitted and promoted only while it is connected.
     * @param outbound  where posted frames go.
     * @param alloc     allocates read request frames.
     */
    TcpOperationTable(final OperationWindow<TcpOperation> window, final EndpointLifecycle lifecycle,
        final TcpOutbound outbound, final ByteBufAllocator alloc)
    {
        this.window = window;
        this.lifecycle = lifecycle;
        this.outbound = outbound;
        this.alloc = alloc;
    }

    // ---------------------------------------------------------------- posting (any thread)

    /**
     * Post a MESSAGE of the {@code length} bytes of {@code buffer} at {@code offset}: framed straight into the outbound
     * batch when it may go now, else copied into a frame of its own that waits in the pending queue. The request id or
     * a negative sentinel.
     */
    long postSend(final DirectBuffer buffer, final int offset, final int length, final CompletionHandler handler)
    {
        final long id;
        final boolean schedule;
        synchronized (window.lock())
        {
            final long result = window.admitLocked(lifecycle);
            if (result < 0)
            {
                return result;
            }
            if (window.mayPostLocked())
            {
                if (handler == null)
                {
                    // Nobody waits for this send: only its credit is tracked, by count, until its batch is written.
                    id = window.postAnonymousLocked();
                    schedule = outbound.addMessage(buffer, offset, length, TcpOutbound.ANONYMOUS_SEND);
                }
                else
                {
                    final TcpOperation op = window.acquireLocked(handler);
                    op.isSend = true;
                    id = op.requestId();
                    window.credits().take(op);
                    window.inflight().track(op);
                    schedule = outbound.addMessage(buffer, offset, length, id);
                }
            }
            else
            {
                final TcpOperation op = window.acquireLocked(handler);
                op.isSend = true;
                id = op.requestId();
                final ByteBuf frame = TcpFrames.messageFrame(alloc, length);
                TcpCopy.append(buffer, offset, frame, length);
                op.frame = frame;
                window.pending().add(op);
                schedule = false;
            }
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
        synchronized (window.lock())
        {
            final long result = window.admitLocked(lifecycle);
            if (result < 0)
            {
                return result;
            }
            final TcpOperation op = window.acquireLocked(handler);
            op.isSend = false;
            op.destination = destination;
            op.destinationOffset = destinationOffset;
            op.length = length;
            op.frame = TcpFrames.readRequestFrame(alloc, op.requestId(), remoteKey.nativeKey(), length,
                remoteKey.token(), remoteAddress);
            id = op.requestId();
            schedule = submit(op);
        }
        if (schedule)
        {
            outbound.schedule();
        }
        return id;
    }

    /** Under lock: post now or queue as pending; true when the caller must schedule the write task. */
    private boolean submit(final TcpOperation op)
    {
        if (window.mayPostLocked())
        {
            return post(op);
        }
        window.pending().add(op);
        return false;
    }

    /**
     * Under lock: take a credit and queue the frame for the write task; true when this post starts a batch (the
     * caller schedules the task once the lock is released).
     */
    private boolean post(final TcpOperation op)
    {
        final ByteBuf frame = op.frame;
        op.frame = null;
        if (op.isSend && op.handler() == null)
        {
            // Nobody waits for this send: only its credit is tracked, by count, until its batch is written.
            window.creditAnonymousLocked(op);
            return outbound.add(frame, TcpOutbound.ANONYMOUS_SEND);
        }
        window.credits().take(op);
        window.inflight().track(op);
        // A send completes locally once written; a read completes with its response.
        return outbound.add(frame, op.isSend ? op.requestId() : TcpOutbound.NOT_A_SEND);
    }

    /**
     * Post pending operations while credits are free and the connection is up (after a local close too: what was
     * posted before the close leaves before it); any thread, the write task is scheduled outside the lock.
     */
    void promotePending()
    {
        boolean schedule = false;
        synchronized (window.lock())
        {
            while (lifecycle.state() == EndpointLifecycle.State.CONNECTED && window.credits().available() && !window.pending().isEmpty())
            {
                schedule |= post(window.pending().poll());
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
        synchronized (window.lock())
        {
            window.credits().giveBack(count);
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
        synchronized (window.lock())
        {
            op = window.inflight().take(id);
            local = lifecycle.isCloseRequested();
        }
        if (op != null)
        {
            op.status(success ? TransportStatus.OK : local ? TransportStatus.CLOSED : TransportStatus.PEER_FAILED);
        }
        return op;
    }

    /** Take an operation out of the in-flight table; {@code null} when it was completed already. */
    TcpOperation take(final long correlationId)
    {
        synchronized (window.lock())
        {
            return window.inflight().take(correlationId);
        }
    }

    /** Deliver a taken operation's completion: its credit comes back, it is pooled, then its handler runs. */
    void complete(final TcpOperation op)
    {
        window.complete(op);
    }

    /** Complete every in-flight and pending operation with {@code status} (worker thread or closing thread). */
    void failAll(final TransportStatus status)
    {
        final ArrayList<TcpOperation> taken = new ArrayList<>();
        window.takeAll(status, taken);
        final int dropped = outbound.releaseQueued();
        if (dropped > 0)
        {
            synchronized (window.lock())
            {
                window.credits().giveBack(dropped); // anonymous sends never written: their credits come back here
            }
        }
        window.completeAll(taken);
    }

    /** Complete operations past their deadline with TIMED_OUT (worker thread); returns how many. */
    int expire(final long nowNanos)
    {
        final int count = window.expire(nowNanos);
        if (count > 0)
        {
            promotePending();
        }
        return count;
    }
}
