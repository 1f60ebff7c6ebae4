package io.rdmakv.transport.verbs;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.RemoteKey;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableRingBuffer;
import org.agrona.MutableDirectBuffer;

import java.util.ArrayDeque;

/**
 * Operations accepted while credits, send-queue slots or bounce space were short, in arrival order (UCX's pending
 * queue). A waiting send's bytes are copied into one growable off-heap ring so the caller may reuse its buffer at
 * once; the op records are pooled, so a steady state allocates nothing. Bounded by op count and payload bytes; a
 * full queue makes the operation return BACK_PRESSURED. Not thread-safe: the endpoint guards it.
 */
final class PendingQueue
{
    /** One waiting operation. */
    static final class Op
    {
        boolean isRead;
        long requestId;
        CompletionHandler handler;
        long enqueueNanos;
        int length;
        /** Send: payload bytes already posted (a message may be posted in parts). */
        int sentBytes;
        /** Send: how many bytes had been posted when it was queued (the stored payload starts there). */
        int storedFrom;
        long remoteAddress;
        RemoteKey remoteKey;
        MutableDirectBuffer destination;
        int destinationOffset;

        void clear()
        {
            handler = null;
            remoteKey = null;
            destination = null;
            sentBytes = 0;
            storedFrom = 0;
        }
    }

    private final ArrayDeque<Op> queue = new ArrayDeque<>();
    private final ArrayDeque<Op> pool = new ArrayDeque<>();
    private final ExpandableRingBuffer payload;
    private final int maxOps;

    PendingQueue(final int maxOps, final int maxPayloadBytes)
    {
        this.maxOps = maxOps;
        // The ring's capacities must be powers of two.
        final int max = Math.min(ExpandableRingBuffer.MAX_CAPACITY,
            BitUtil.findNextPositivePowerOfTwo(Math.max(maxPayloadBytes, 64 * 1024)));
        this.payload = new ExpandableRingBuffer(64 * 1024, max, true);
    }

    boolean isEmpty()
    {
        return queue.isEmpty();
    }

    int size()
    {
        return queue.size();
    }

    Op peek()
    {
        return queue.peekFirst();
    }

    /** Queue a send with the bytes not yet posted; false when the queue or its payload ring is full. */
    boolean addSend(final long requestId, final CompletionHandler handler, final DirectBuffer src, final int offset,
        final int length, final int alreadySent, final long nowNanos)
    {
        if (queue.size() >= maxOps || !payload.append(src, offset, length))
        {
            return false;
        }
        final Op op = take();
        op.isRead = false;
        op.requestId = requestId;
        op.handler = handler;
        op.length = length + alreadySent;
        op.sentBytes = alreadySent;
        op.storedFrom = alreadySent;
        op.enqueueNanos = nowNanos;
        queue.addLast(op);
        return true;
    }

    boolean addRead(final long requestId, final CompletionHandler handler, final long remoteAddress,
        final RemoteKey remoteKey, final int length, final MutableDirectBuffer destination,
        final int destinationOffset, final long nowNanos)
    {
        if (queue.size() >= maxOps)
        {
            return false;
        }
        final Op op = take();
        op.isRead = true;
        op.requestId = requestId;
        op.handler = handler;
        op.remoteAddress = remoteAddress;
        op.remoteKey = remoteKey;
        op.length = length;
        op.destination = destination;
        op.destinationOffset = destinationOffset;
        op.enqueueNanos = nowNanos;
        queue.addLast(op);
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

    /** Remove and recycle the head op (after it completed or was posted in full). */
    void removeHead()
    {
        final Op op = queue.pollFirst();
        if (op != null)
        {
            op.clear();
            pool.addLast(op);
        }
    }

    /** Drop the head send's payload without posting it (failure paths). */
    void discardHeadPayload()
    {
        payload.consume((buffer, offset, length, headOffset) -> true, 1);
    }

    private Op take()
    {
        final Op op = pool.pollFirst();
        return op != null ? op : new Op();
    }
}
