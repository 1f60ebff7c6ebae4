package io.rdmakv.client.internal;

/** Follows a WRONG_NODE answer: refreshes the cluster map and sends the request again, off the progress thread. */
interface Redirector
{
    /**
     * @param slot   the request, claimed (no longer waiting for an answer).
     * @param target the right node's {@code host:port} as the server gave it (may be empty or garbage).
     */
    void redirect(RequestSlot slot, String target);

    /**
     * The request's connection was lost before it was answered. In a replicated cluster the key's range may have
     * failed over: returns true when the request was taken to be routed again (within its deadline); false when the
     * caller should fail it.
     *
     * @param slot the request, claimed.
     * @param why  what happened, for the failure if the deadline passes.
     */
    default boolean reroute(final RequestSlot slot, final String why)
    {
        return false;
    }
}
