package io.rdmakv.server.handler;

import io.rdmakv.server.admission.AdmissionSettings;
import io.rdmakv.server.admission.SourceAddress;
import io.rdmakv.server.admission.UnauthenticatedBudget;
import io.rdmakv.server.session.Access;
import io.rdmakv.transport.Endpoint;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which data endpoints have attached (presented a valid session ticket) and which are still waiting to, since when.
 * An endpoint is served only once attached. Waiting endpoints have their own budget, bounded in total and per source
 * address, that sheds its oldest member for a newcomer; one that has not attached within the handshake timeout is
 * handed back by {@link #overdue} to be closed, so idle connections can neither hold a slot for long nor lock a
 * client out. Attached endpoints are bounded apart ({@code limits.maxConnections}).
 *
 * <pre>
 *   onConnected -> waiting(since) --ATTACH ok--> attached --disconnect--> gone
 *                     |  \--anything else / bad ticket--> closed
 *                     |  \--older than the deadline--> closed
 *                     \--the oldest (in all, or of its source) when a newcomer finds the budget full--> shed
 * </pre>
 *
 * Progress thread only. {@link #isAttached} is on every request: an identity-map lookup, no allocation.
 */
final class EndpointAdmission
{
    /** {@link #attach}: now attached. */
    static final int ATTACHED = 0;
    /** {@link #attach}: was not waiting (already attached, shed, or never connected). */
    static final int NOT_WAITING = 1;
    /** {@link #attach}: {@code maxAttached} endpoints are attached already; it is forgotten. */
    static final int FULL = 2;

    /** Attached endpoints and what each one's session may do. */
    private final Map<Endpoint, Access> attached = new IdentityHashMap<>();
    private final UnauthenticatedBudget<Endpoint> waiting;
    private final int maxAttached;

    /**
     * @param settings    budget, per-source bound and deadline of endpoints that have not attached.
     * @param maxAttached attached endpoints at most.
     */
    EndpointAdmission(final AdmissionSettings settings, final int maxAttached)
    {
        this.waiting = settings.newBudget();
        this.maxAttached = maxAttached;
    }

    /** Admit a new endpoint; returns the one shed to make room (forgotten here: close it), or {@code null}. */
    Endpoint onConnected(final Endpoint endpoint, final long nowNanos)
    {
        return waiting.admit(endpoint, SourceAddress.of(endpoint.remoteAddress()), nowNanos);
    }

    /** Which bound the last {@link #onConnected} that shed found full (for the log). */
    String lastShedReason()
    {
        return waiting.lastShedReason();
    }

    /** True if the endpoint was known (waiting or attached) and is now forgotten. */
    boolean onDisconnected(final Endpoint endpoint)
    {
        return waiting.remove(endpoint) | attached.remove(endpoint) != null;
    }

    boolean isAttached(final Endpoint endpoint)
    {
        return attached.containsKey(endpoint);
    }

    /** What an attached endpoint's session may do; null when it has not attached. */
    Access accessOf(final Endpoint endpoint)
    {
        return attached.get(endpoint);
    }

    /**
     * Move a waiting endpoint to attached: {@link #ATTACHED}, {@link #NOT_WAITING} or {@link #FULL}. A client's caller
     * lane ({@code lane}) is admitted only below three quarters of the limit: the last quarter is kept for clients'
     * first connections.
     */
    int attach(final Endpoint endpoint, final boolean lane, final Access access)
    {
        if (!waiting.authenticated(endpoint))
        {
            return NOT_WAITING;
        }
        if (attached.size() >= (lane ? maxAttached - maxAttached / 4 : maxAttached))
        {
            return FULL;
        }
        attached.put(endpoint, access);
        return ATTACHED;
    }

    /** The attached endpoints whose session {@code revoked} says is revoked, each with why (allocates: rare). */
    Map<Endpoint, String> revoked(final java.util.function.Function<Access, String> revoked)
    {
        final Map<Endpoint, String> out = new IdentityHashMap<>();
        attached.forEach((endpoint, access) ->
        {
            final String why = revoked.apply(access);
            if (why != null)
            {
                out.put(endpoint, why);
            }
        });
        return out;
    }

    /** Endpoints attached now. */
    int attachedCount()
    {
        return attached.size();
    }

    /** Connected, not attached yet, not refused. */
    boolean isWaiting(final Endpoint endpoint)
    {
        return waiting.isWaiting(endpoint);
    }

    boolean anyWaiting()
    {
        return waiting.size() > 0;
    }

    /** Remove and return the endpoints waiting longer than the deadline (allocates; only when some are late). */
    List<Endpoint> overdue(final long nowNanos)
    {
        return waiting.overdue(nowNanos);
    }

    /** Endpoints connected and not disconnected, attached or not. */
    int size()
    {
        return attached.size() + waiting.size();
    }
}
