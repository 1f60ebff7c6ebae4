package io.rdmakv.server.handler;

import io.rdmakv.transport.Endpoint;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Which data endpoints have attached (presented a valid session ticket) and which are still waiting to, since when.
 * An endpoint is served only once attached; one that has not attached within the deadline is handed back by
 * {@link #overdue} to be closed, so a silent connection cannot hold a connection slot for ever.
 *
 * <pre>
 *   onConnected -> waiting(since) --ATTACH ok--> attached --disconnect--> gone
 *                     |  \--anything else / bad ticket--> closed
 *                     \--no ATTACH within the deadline--> closed
 * </pre>
 *
 * Progress thread only. {@link #isAttached} is on every request: an identity-map lookup, no allocation.
 */
final class EndpointAdmission
{
    private final Map<Endpoint, Boolean> attached = new IdentityHashMap<>();
    private final Map<Endpoint, Long> waiting = new IdentityHashMap<>();
    private final long deadlineNanos;

    /** @param deadlineNanos how long a connected endpoint may take to attach. */
    EndpointAdmission(final long deadlineNanos)
    {
        this.deadlineNanos = deadlineNanos;
    }

    void onConnected(final Endpoint endpoint, final long nowNanos)
    {
        waiting.put(endpoint, nowNanos);
    }

    /** True if the endpoint was known (waiting or attached) and is now forgotten. */
    boolean onDisconnected(final Endpoint endpoint)
    {
        return waiting.remove(endpoint) != null | attached.remove(endpoint) != null;
    }

    boolean isAttached(final Endpoint endpoint)
    {
        return attached.containsKey(endpoint);
    }

    /** Move a waiting endpoint to attached; false if it was not waiting (already attached or never connected). */
    boolean attach(final Endpoint endpoint)
    {
        if (waiting.remove(endpoint) == null)
        {
            return false;
        }
        attached.put(endpoint, Boolean.TRUE);
        return true;
    }

    /** Connected, not attached yet, not refused. */
    boolean isWaiting(final Endpoint endpoint)
    {
        return waiting.containsKey(endpoint);
    }

    boolean anyWaiting()
    {
        return !waiting.isEmpty();
    }

    /** Remove and return the endpoints waiting longer than the deadline (allocates; only when some are waiting). */
    List<Endpoint> overdue(final long nowNanos)
    {
        List<Endpoint> late = null;
        for (final Iterator<Map.Entry<Endpoint, Long>> it = waiting.entrySet().iterator(); it.hasNext(); )
        {
            final Map.Entry<Endpoint, Long> e = it.next();
            if (nowNanos - e.getValue() >= deadlineNanos)
            {
                if (late == null)
                {
                    late = new ArrayList<>();
                }
                late.add(e.getKey());
                it.remove();
            }
        }
        return late == null ? List.of() : late;
    }

    /** Endpoints connected and not disconnected, attached or not. */
    int size()
    {
        return attached.size() + waiting.size();
    }
}
