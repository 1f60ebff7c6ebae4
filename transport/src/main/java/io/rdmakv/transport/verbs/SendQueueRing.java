package io.rdmakv.transport.verbs;

import io.rdmakv.transport.CompletionHandler;
import org.agrona.MutableDirectBuffer;

/**
 * Book-keeping for the work requests posted on one QP's send queue, slot {@code i} matching send work request
 * {@code i} and send buffer {@code i}. RC completes send-queue work requests in posting order, so the ring is popped
 * from the head up to the slot a (signaled) completion names; unsignaled slots before it completed implicitly.
 * Also allocates read bounce space first-in first-out, which matches that completion order.
 *
 * <pre>
 *   head                        head + size
 *    v                              v
 *   [ posted | posted | ... | posted | free | free | ... ]   (indices modulo capacity)
 * </pre>
 *
 * Not thread-safe: the endpoint guards it.
 */
final class SendQueueRing
{
    static final byte KIND_SEND = 1;
    static final byte KIND_READ = 2;
    static final byte KIND_CREDIT = 3;
    /** A memory-window bind or invalidation ({@link VerbsMemoryWindow}): no payload, always tracked. */
    static final byte KIND_WINDOW = 4;

    final int capacity;
    final byte[] kind;
    final long[] requestId;
    final CompletionHandler[] handler;
    final boolean[] tracked;
    final MutableDirectBuffer[] destination;
    final int[] destinationOffset;
    final int[] length;
    final int[] bounceOffset;
    final int[] bounceSpan;
    final long[] postNanos;
    private int head;
    private int size;

    private final int bounceCapacity;
    private long bounceTail;
    private int bounceUsed;
    private int lastSpan;

    SendQueueRing(final int capacity, final int bounceCapacity)
    {
        this.capacity = capacity;
        this.bounceCapacity = bounceCapacity;
        kind = new byte[capacity];
        requestId = new long[capacity];
        handler = new CompletionHandler[capacity];
        tracked = new boolean[capacity];
        destination = new MutableDirectBuffer[capacity];
        destinationOffset = new int[capacity];
        length = new int[capacity];
        bounceOffset = new int[capacity];
        bounceSpan = new int[capacity];
        postNanos = new long[capacity];
    }

    int size()
    {
        return size;
    }

    int free()
    {
        return capacity - size;
    }

    int head()
    {
        return head;
    }

    /** Take the next slot (caller checked {@link #free()}); returns its index. */
    int claim(final byte entryKind, final long id, final CompletionHandler entryHandler, final boolean isTracked,
        final long nowNanos)
    {
        final int index = (head + size) % capacity;
        size++;
        kind[index] = entryKind;
        requestId[index] = id;
        handler[index] = entryHandler;
        tracked[index] = isTracked;
        destination[index] = null;
        bounceSpan[index] = 0;
        postNanos[index] = nowNanos;
        return index;
    }

    /** Give back the most recently claimed slot (when posting it failed before the HCA saw it). */
    void unclaimLast()
    {
        final int index = (head + size - 1) % capacity;
        releaseBounce(bounceSpan[index]);
        bounceTail -= bounceSpan[index];
        clear(index);
        size--;
    }

    /** True when slot {@code index} is currently posted (between head and tail). */
    boolean isPosted(final int index)
    {
        if (index < 0 || index >= capacity || size == 0)
        {
            return false;
        }
        final int distance = (index - head + capacity) % capacity;
        return distance < size;
    }

    /** Remove the head slot; the caller read what it needs first. */
    int pop()
    {
        final int index = head;
        releaseBounce(bounceSpan[index]);
        clear(index);
        head = (head + 1) % capacity;
        size--;
        return index;
    }

    /**
     * Reserve {@code bytes} of contiguous bounce space after all earlier reservations.
     *
     * @return the offset in the bounce area, or -1 when it is full now (wait for reads to complete).
     */
    int allocateBounce(final int bytes)
    {
        final int aligned = (bytes + 63) & ~63;
        if (aligned > bounceCapacity)
        {
            return -1;
        }
        if (bounceUsed == 0)
        {
            // Nothing in flight: start over at 0, or a large read could wait forever behind the padding of a wrap.
            bounceTail = 0;
        }
        final int position = (int)(bounceTail % bounceCapacity);
        final int waste = position + aligned <= bounceCapacity ? 0 : bounceCapacity - position;
        if (bounceUsed + waste + aligned > bounceCapacity)
        {
            return -1;
        }
        lastSpan = waste + aligned;
        bounceTail += lastSpan;
        bounceUsed += lastSpan;
        return waste == 0 ? position : 0;
    }

    /** Span of the last {@link #allocateBounce} (padding included), to store in the slot that owns it. */
    int lastSpan()
    {
        return lastSpan;
    }

    int bounceUsed()
    {
        return bounceUsed;
    }

    private void releaseBounce(final int span)
    {
        bounceUsed -= span;
    }

    private void clear(final int index)
    {
        handler[index] = null;
        destination[index] = null;
        bounceSpan[index] = 0;
        tracked[index] = false;
    }
}
