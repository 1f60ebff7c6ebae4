package io.rdmakv.transport.base;

import org.agrona.collections.Long2ObjectHashMap;

import java.util.Collection;
import java.util.Iterator;
import java.util.function.Predicate;

/**
 * Posted operations whose answer finds them by request id. Taking one out makes its taker its owner: a late answer
 * for an id taken already (timed out, failed) finds nothing. Under the window's lock.
 *
 * @param <O> the transport's pooled operation.
 */
public final class InflightTable<O extends Operation>
{
    private final Long2ObjectHashMap<O> byId = new Long2ObjectHashMap<>();

    /** Put a posted operation where its answer finds it by id. */
    public void track(final O op)
    {
        byId.put(op.requestId, op);
    }

    /** Take an operation out; {@code null} when it was completed already. */
    public O take(final long requestId)
    {
        return byId.remove(requestId);
    }

    /** Take every operation {@code filter} accepts into {@code out}; returns how many. */
    public int takeIf(final Predicate<O> filter, final Collection<? super O> out)
    {
        int n = 0;
        for (final Iterator<O> it = byId.values().iterator(); it.hasNext(); )
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

    public int size()
    {
        return byId.size();
    }

    boolean isEmpty()
    {
        return byId.isEmpty();
    }

    Iterator<O> iterator()
    {
        return byId.values().iterator();
    }

    void clear()
    {
        byId.clear();
    }
}
