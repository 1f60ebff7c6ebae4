package io.rdmakv.transport.base;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Operations admitted while no credit was free, in the order they came, bounded (a full queue makes the next
 * operation BACK_PRESSURED, {@link OperationWindow#admitLocked}). Under the window's lock.
 *
 * @param <O> the transport's pooled operation.
 */
public final class PendingOperations<O extends Operation>
{
    private final ArrayDeque<O> queue = new ArrayDeque<>();
    private final int max;

    PendingOperations(final int max)
    {
        this.max = max;
    }

    public boolean isEmpty()
    {
        return queue.isEmpty();
    }

    /** It holds its maximum: the next operation to wait is refused. */
    public boolean isFull()
    {
        return queue.size() >= max;
    }

    public int size()
    {
        return queue.size();
    }

    /** Queue an admitted operation behind the others. */
    public void add(final O op)
    {
        queue.addLast(op);
    }

    public O peek()
    {
        return queue.peekFirst();
    }

    public O poll()
    {
        return queue.pollFirst();
    }

    /** The oldest waiting operation is past its deadline at {@code nowNanos}. */
    public boolean headExpired(final long nowNanos)
    {
        final O head = queue.peekFirst();
        return head != null && head.deadlineNanos - nowNanos <= 0;
    }

    Iterator<O> iterator()
    {
        return queue.iterator();
    }
}
