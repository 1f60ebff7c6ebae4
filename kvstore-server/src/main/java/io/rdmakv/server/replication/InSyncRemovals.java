package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Set;

/**
 * Kafka's ISR rule on the primary: a backup that failed for a range's writes is asked out of the range's in-sync set,
 * and the writes waiting for it are answered only once that is committed.
 *
 * <pre>
 *   failed(node, range)  a learner catching up on it?  -> its catch-up ends (nothing to ask the coordinator)
 *                        else, once per (range, node) at a time -> view.removeFromInSync(range, epoch, node)
 *   committed (the state no longer lists it)  -> writes of the range waiting for it stop waiting
 *   refused, or still listed                  -> those writes fail with BUSY (retryable; the write may be applied)
 * </pre>
 * Request thread only (the coordinator's answer comes back through {@link ReplicaLinks#post}).
 */
final class InSyncRemovals
{
    private static final Logger LOG = LoggerFactory.getLogger(InSyncRemovals.class);

    private final ClusterView view;
    private final int localNodeId;
    private final ReplicaLinks links;
    private final PendingWrites pending;
    private final LearnerCatchUps catchUps;
    /** (first slot, node) pairs whose removal from the in-sync set was asked and not answered yet. */
    private final Set<Long> removing = new HashSet<>();

    InSyncRemovals(final ClusterView view, final ReplicaLinks links, final PendingWrites pending,
        final LearnerCatchUps catchUps)
    {
        this.view = view;
        this.localNodeId = view.localNodeId();
        this.links = links;
        this.pending = pending;
        this.catchUps = catchUps;
    }

    /**
     * A backup failed for the writes of range {@code firstSlot} at {@code rangeEpoch}: ask the coordinator to take it
     * out of the in-sync set (once per range and node at a time). Until that is committed, no write waiting for it is
     * answered; if refused, those writes fail with BUSY.
     */
    void replicaFailed(final int nodeId, final int firstSlot, final long rangeEpoch, final String reason)
    {
        if (catchUps.endIfCatchingUp(nodeId, firstSlot, reason))
        {
            return;
        }
        final Long key = ((long)firstSlot << 32) | nodeId;
        if (!removing.add(key))
        {
            return;
        }
        LOG.warn("replication: {}; asking to remove node {} from the in-sync set of range {} (epoch {})", reason,
            nodeId, firstSlot, rangeEpoch);
        view.removeFromInSync(firstSlot, rangeEpoch, nodeId).whenComplete((state, failure) -> links.post(() ->
        {
            removing.remove(key);
            onRemoval(nodeId, firstSlot, state, failure, reason);
        }));
    }

    private void onRemoval(final int nodeId, final int firstSlot, final ClusterState state, final Throwable failure,
        final String reason)
    {
        // Out of the in-sync set once the committed state no longer lists it, whoever removed it (this request, or the
        // coordinator on its own while the request waited: then the request itself may fail on the epoch).
        final ClusterState now = failure == null && state != null ? state : view.current();
        final SlotRange range = now.ranges().isEmpty() ? null : now.rangeOf(firstSlot);
        final boolean removed = range != null && range.primary() == localNodeId && !range.backups().contains(nodeId);
        if (removed)
        {
            LOG.info("node {} left the in-sync set of range {} (epoch {})", nodeId, firstSlot, range.epoch());
        }
        else
        {
            LOG.warn("node {} could not leave the in-sync set of range {}: {}; its writes fail", nodeId, firstSlot,
                failure == null ? "still listed" : failure.getMessage());
        }
        for (final ReplicatedWrite w : pending.sentWrites())
        {
            if (w.firstSlot == firstSlot && w.awaits(nodeId))
            {
                if (removed)
                {
                    w.release(nodeId);
                }
                else
                {
                    w.fail(Status.BUSY, "replica " + nodeId + " unreachable (" + reason + ") and the in-sync set " +
                        "cannot change: the write is not acknowledged (it may be applied); retry");
                }
                pending.drainCompleted();
            }
        }
    }
}
