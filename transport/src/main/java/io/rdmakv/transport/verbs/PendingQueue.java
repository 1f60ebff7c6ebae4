package io.rdmakv.transport.verbs;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.base.Operation;
import io.rdmakv.transport.base.OperationWindow;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableRingBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The verbs side of the window's pending queue (UCX's pending queue): operations accepted while credits, send-queue
 * slots or bounce space were short wait in the endpoint's {@link OperationWindow}, in arrival order and bounded by
 * its {@code maxPending}; a waiting send's bytes are copied into one growable off-heap ring here, so the caller may
 * reuse its buffer at once and a message can be posted in parts. A full queue or ring makes the operation return
 * BACK_PRESSURED. Not thread-safe: every call is made under the window's lock.
 */
final class PendingQueue
{
    /** One waiting operation. */
    static final class Op extends Operation
    {
        boolean isRead;
        int length;
        /** Send: payload bytes already posted (a message may be posted in parts). */
        int sentBytes;
        /** Send: how many bytes had been posted when it was queued (the stored payload starts there). */
        int storedFrom;
        long remoteAddress;
        RemoteKey remoteKey;
        MutableDirectBuffer destination;
        int destinationOffset;

        @Override
        protected void clear()
        {
            remoteKey = null;
            destination = null;
            sentBytes = 0;
            storedFrom = 0;
        }
    }

    private final OperationWindow<Op> window;
    private final ExpandableRingBuffer payload;

    PendingQueue(final OperationWindow<Op> window, final int maxPayloadBytes)
    {
        this.window = window;
        // The ring's capacities must be powers of two.
        final int max = Math.min(ExpandableRingBuffer.MAX_CAPACITY,
            BitUtil.findNextPositivePowerOfTwo(Math.max(maxPayloadBytes, 64 * 1024)));
        this.payload = new ExpandableRingBuffer(64 * 1024, max, true);
    }

    boolean isEmpty()
    {
        return window.pending().isEmpty();
    }

    int size()
    {
        return window.pending().size();
    }

    Op peek()
    {
        return window.pending().peek();
    }

    /** Queue a send with the bytes not yet posted; false when the queue or its payload ring is full. */
    boolean addSend(final long requestId, final CompletionHandler handler, final DirectBuffer src, final int offset,
        final int length, final int alreadySent)
    {
        if (window.pending().isFull() || !payload.append(src, offset, length))
        {
            return false;
        }
        final Op op = window.acquireLocked(requestId, handler);
        op.isRead = false;
        op.length = length + alreadySent;
        op.sentBytes = alreadySent;
        op.storedFrom = alreadySent;
        window.pending().add(op);
        return true;
    }

    boolean addRead(final long requestId, final CompletionHandler handler, final long remoteAddress,
        final RemoteKey remoteKey, final int length, final MutableDirectBuffer destination,
        final int destinationOffset)
    {
        if (window.pending().isFull())
        {
            return false;
        }
        final Op op = window.acquireLocked(requestId, handler);
        op.isRead = true;
        op.remoteAddress = remoteAddress;
        op.remoteKey = remoteKey;
        op.length = length;
        op.destination = destination;
        op.destinationOffset = destinationOffset;
        window.pending().add(op);
        return true;
    }

    /**
     * Offer the head send's remaining bytes (they start at the op's {@code sentBytes}) to {@code consumer}; the
     * payload is dropped when the consumer returns true (all posted).
     */
    void consumeHeadPayload(final ExpandableRingBuffer.MessageConsumer consumer)
    {
        payload.consume(consumer, 1);
    }

    /** Remove and recycle the head op (after it completed or was posted in full: the send-queue ring has it now). */
    void removeHead()
    {
        final Op op = window.pending().poll();
        if (op != null)
        {
            window.recycleLocked(op);
        }
    }

    /** The oldest waiting operation is past its deadline (the window's operation timeout). */
    boolean headExpired(final long nowNanos)
    {
        return window.pending().headExpired(nowNanos);
    }

    /** Drop the head send's payload without posting it (failure paths). */
    void discardHeadPayload()
    {
        payload.consume((buffer, offset, length, headOffset) -> true, 1);
    }
}
