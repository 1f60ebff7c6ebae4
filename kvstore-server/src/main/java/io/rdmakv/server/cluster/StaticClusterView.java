package io.rdmakv.server.cluster;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A configuration that never changes: a single node owning every slot, or a fixed map from the node's settings.
 * No coordination service runs; changes of the in-sync set are refused (there is nobody to decide them).
 */
public final class StaticClusterView implements ClusterView
{
    private final int localNodeId;
    private final ClusterState state;

    public StaticClusterView(final int localNodeId, final ClusterState state)
    {
        if (state.member(localNodeId) == null)
        {
            throw new IllegalArgumentException("node " + localNodeId + " is not a member of " + state);
        }
        this.localNodeId = localNodeId;
        this.state = state;
    }

    /** One node owning every slot at epoch 1. */
    public static StaticClusterView singleNode(final ClusterMember self)
    {
        final SlotRange all = new SlotRange(0, ClusterState.HASH_SLOT_COUNT - 1, 1, self.nodeId(), List.of(), List.of(),
            SlotRange.State.LIVE);
        return new StaticClusterView(self.nodeId(), new ClusterState(1, List.of(self), List.of(all)));
    }

    @Override
    public int localNodeId()
    {
        return localNodeId;
    }

    @Override
    public ClusterState current()
    {
        return state;
    }

    @Override
    public void subscribe(final Consumer<ClusterState> listener)
    {
        // Nothing ever changes.
    }

    @Override
    public CompletableFuture<ClusterState> removeFromInSync(final int firstSlot, final long rangeEpoch, final int nodeId)
    {
        return CompletableFuture.failedFuture(
            new IllegalStateException("a static cluster map cannot change its in-sync set (no coordinator runs)"));
    }

    @Override
    public CompletableFuture<ClusterState> promoteLearner(final int firstSlot, final long rangeEpoch, final int nodeId)
    {
        return CompletableFuture.failedFuture(
            new IllegalStateException("a static cluster map cannot promote a learner (no coordinator runs)"));
    }

    @Override
    public boolean holdsLease(final long nowNanos)
    {
        return true;
    }

    @Override
    public long leaseDeadlineNanos()
    {
        return Long.MAX_VALUE;
    }

    @Override
    public void close()
    {
    }
}
