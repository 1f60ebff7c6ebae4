package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.store.StoreKeys;
import org.agrona.DirectBuffer;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;

/**
 * A replica's check of each REPLICATE message against its own view of the cluster, and the catch-up rule.
 *
 * <pre>
 *   message epoch &lt; the range's epoch here                      -> STALE_EPOCH (the sender is no longer primary)
 *   same epoch, and this node is not a backup or learner of it   -> STALE_EPOCH
 *   newer epoch (this node's view lags the sender's)             -> accepted (the sender knows a later decision)
 *   COPY (checkpoint entry) of a key a PUT/DELETE already wrote since the catch-up began -> skipped (tail wins)
 * </pre>
 * While this node catches up on any range (a learner in its view, or sent a newer epoch than it knows), it remembers
 * the keys the tail wrote; the memory is dropped once it is a learner nowhere. Request thread only.
 */
public final class ReplicaGate implements io.rdmakv.server.handler.ReplicaAdmission
{
    private final ClusterView view;
    private final Set<ByteBuffer> tailKeys = new HashSet<>();

    public ReplicaGate(final ClusterView view)
    {
        this.view = view;
    }

    /**
     * Whether this node takes the write: {@link Status#OK}, or the status to refuse it with. Records tail keys.
     * A COPY that the tail superseded answers {@link Status#NOT_FOUND}: acknowledged, not applied.
     */
    @Override
    public Status admit(final ReplicateRequestFlyweight request)
    {
        final int slot = StoreKeys.slotOf(request.buffer(), request.keyIndex(), request.keyLength());
        final SlotRange range = view.current().rangeOf(slot);
        if (!range.contains(request.firstSlot()))
        {
            return Status.STALE_EPOCH; // the sender's range boundaries differ from ours: one of us is stale
        }
        final long epoch = request.rangeEpoch();
        final int self = view.localNodeId();
        if (epoch < range.epoch() ||
            (epoch == range.epoch() && !range.backups().contains(self) && !range.learners().contains(self)))
        {
            return Status.STALE_EPOCH;
        }
        final boolean catchingUp = range.learners().contains(self) || epoch > range.epoch();
        if (request.op() == ReplicateRequestFlyweight.OP_COPY)
        {
            return tailKeys.contains(key(request.buffer(), request.keyIndex(), request.keyLength())) ?
                Status.NOT_FOUND : Status.OK;
        }
        if (catchingUp)
        {
            tailKeys.add(key(request.buffer(), request.keyIndex(), request.keyLength()));
        }
        else if (!tailKeys.isEmpty() && !learnerAnywhere(self))
        {
            tailKeys.clear();
        }
        return Status.OK;
    }

    /** Keys the tail wrote during the current catch-up (tests). */
    public int tailKeyCount()
    {
        return tailKeys.size();
    }

    private boolean learnerAnywhere(final int self)
    {
        for (final SlotRange r : view.current().ranges())
        {
            if (r.learners().contains(self))
            {
                return true;
            }
        }
        return false;
    }

    private static ByteBuffer key(final DirectBuffer buffer, final int index, final int length)
    {
        final byte[] copy = new byte[length];
        buffer.getBytes(index, copy);
        return ByteBuffer.wrap(copy);
    }
}
