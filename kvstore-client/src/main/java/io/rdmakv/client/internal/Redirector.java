package io.rdmakv.client.internal;

/**
 * Routes a request again when its node cannot answer it: a WRONG_NODE answer, or a lost connection. Implemented by
 * the {@link ClusterRouter}; the protocols and sessions it creates hold it as this interface.
 */
interface Redirector
{
    /**
     * Follows a WRONG_NODE answer: refreshes the cluster map and sends the request again, off the progress thread.
     *
     * @param requestSlot   the request, claimed (no longer waiting for an answer).
     * @param target the right node's {@code host:port} as the server gave it (may be empty or garbage).
     */
    void redirect(RequestSlot requestSlot, String target);

    /**
     * A node's connection is gone (progress thread): each request still waiting for its answer is routed again when
     * its range may have failed over (a replicated cluster, within the request's deadline), else failed.
     *
     * @param session the lost node's session.
     * @param why     what happened, for the failures.
     */
    void sessionLost(NodeSession session, String why);
}
