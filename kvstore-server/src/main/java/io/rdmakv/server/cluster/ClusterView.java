package io.rdmakv.server.cluster;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A node's view of the cluster configuration, and its only way to ask for a change of it. Implemented by
 * {@link StaticClusterView} (a single node, or a fixed map from settings) and by the Ratis-backed coordinator.
 *
 * <p>The data path (request handling, replication) reads {@link #current()}; it never decides membership, promotion
 * or the in-sync set itself: it asks, and acts on what is committed.
 */
public interface ClusterView extends AutoCloseable
{
    /** This node's id. */
    int localNodeId();

    /** The newest committed state this node knows (never null). */
    ClusterState current();

    /**
     * Called with every newer committed state, in epoch order, on a thread of the view's own (never the caller's of
     * {@code subscribe}); listeners must not block.
     */
    void subscribe(Consumer<ClusterState> listener);

    /**
     * The primary of a range asks that {@code nodeId} leave the range's in-sync backups (it failed or fell behind).
     * Until the returned future completes with a state that no longer lists it, the primary must not acknowledge a
     * write that did not reach that backup. Completes exceptionally when the request is refused or this node is no
     * longer the range's primary at {@code rangeEpoch}.
     */
    CompletableFuture<ClusterState> removeFromInSync(int firstSlot, long rangeEpoch, int nodeId);

    /**
     * A learner caught up with the primary of a range (the primary asks): it joins the in-sync backups.
     */
    CompletableFuture<ClusterState> promoteLearner(int firstSlot, long rangeEpoch, int nodeId);

    /**
     * Whether this node may still answer writes (and grant client read leases) at {@code nowNanos}
     * ({@link System#nanoTime()} scale): true while its node lease surely holds. Always true on a static view.
     */
    boolean holdsLease(long nowNanos);

    /**
     * The {@link System#nanoTime()} until which this node's lease surely holds ({@link Long#MAX_VALUE} on a static view).
     */
    long leaseDeadlineNanos();

    /**
     * The members the cluster declared failed (their lease expired; they stay members until they rejoin or are
     * removed), as of {@link #current()} or newer. Empty on a static view.
     */
    default java.util.Set<Integer> failedNodes()
    {
        return java.util.Set.of();
    }

    @Override
    void close();
}
