package io.rdmakv.server.handler;

import io.rdmakv.server.admission.AdmissionSettings;
import io.rdmakv.server.session.SessionTickets;

/**
 * What the {@link RequestHandler} is built with beside the node's write parts, fixed at start.
 *
 * @param router    which cluster slots this node serves until {@link RequestHandler#follow} names a cluster view.
 * @param tickets   the session tickets the control plane issues; an endpoint is served after redeeming one.
 * @param admission how endpoints that have not attached yet are bounded, shed and timed out.
 * @param timer     where each request's time is reported ({@link RequestTimer#NONE}: nowhere).
 */
public record HandlerContext(SlotRouter router, SessionTickets tickets, AdmissionSettings admission,
    RequestTimer timer)
{
}
