package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.KeyHasher;
import io.rdmakv.server.admission.AdmissionSettings;
import io.rdmakv.server.session.SessionTickets;

import java.util.function.LongSupplier;

/**
 * What the {@link RequestHandler} is built with beside the node's write parts, fixed at start.
 *
 * @param router    which cluster slots this node serves until {@link RequestHandler#follow} names a cluster view.
 * @param tickets   the session tickets the control plane issues; an endpoint is served after redeeming one.
 * @param admission how endpoints that have not attached yet are bounded, shed and timed out.
 * @param timer     where each request's time is reported ({@link RequestTimer#NONE}: nowhere).
 * @param hasher    how a request's key is hashed at decode, once ({@link KeyHasher#STANDARD}; a test counts
 *                  through its own).
 * @param clockMillis the wall clock expiries are compared with (ms since the epoch; a test injects its own).
 */
public record HandlerContext(SlotRouter router, SessionTickets tickets, AdmissionSettings admission,
    RequestTimer timer, KeyHasher hasher, LongSupplier clockMillis)
{
    /** A context on the system's wall clock. */
    public HandlerContext(final SlotRouter router, final SessionTickets tickets, final AdmissionSettings admission,
        final RequestTimer timer, final KeyHasher hasher)
    {
        this(router, tickets, admission, timer, hasher, System::currentTimeMillis);
    }

    /** A context hashing keys with {@link KeyHasher#STANDARD}, the hashes clients agree on. */
    public HandlerContext(final SlotRouter router, final SessionTickets tickets, final AdmissionSettings admission,
        final RequestTimer timer)
    {
        this(router, tickets, admission, timer, KeyHasher.STANDARD);
    }
}
