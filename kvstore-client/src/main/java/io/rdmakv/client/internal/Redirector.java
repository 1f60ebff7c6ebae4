package io.rdmakv.client.internal;

/** Follows a WRONG_NODE answer: refreshes the cluster map and sends the request again, off the progress thread. */
interface Redirector
{
    /**
     * @param slot   the request, claimed (no longer waiting for an answer).
     * @param target the right node's {@code host:port} as the server gave it (may be empty or garbage).
     */
    void redirect(RequestSlot slot, String target);
}
