package io.rdmakv.transport;

import java.util.concurrent.CompletableFuture;

/**
 * A revocable remote key for one peer ({@link Endpoint#bindWindow}): a window over part of a registered region,
 * valid for reads by that endpoint's peer over that connection only. Unlike a region's key, which is valid for
 * anyone who learns it until the region is deregistered, a window is revoked on its own: {@link #invalidate()} or
 * {@link #close()}, and the peer's next read with it fails (verbs: {@link TransportStatus#INVALID_RKEY}, which on
 * RC ends that peer's connection, no other).
 */
public interface MemoryWindow extends AutoCloseable
{
    /** The key to hand to the endpoint's peer: the window's native key, the bound range, no token. */
    RemoteKey remoteKey();

    /**
     * Revoke the key: posted on the endpoint the window was bound on.
     *
     * @return completes once the device has invalidated the window (reads with the key fail from then on), or
     *         exceptionally when it could not be posted (the endpoint is gone: then {@link #close()} revokes it).
     */
    CompletableFuture<Void> invalidate();

    /**
     * Free the window; revokes the key if still valid. Idempotent; works after its endpoint closed. Close every
     * window of a region before the region (a device refuses to deregister memory that windows are bound over), and
     * a window whose endpoint ended: its key died with the connection, but only this frees the window.
     */
    @Override
    void close();
}
