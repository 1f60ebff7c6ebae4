package io.rdmakv.server.replication;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.Status;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongLongConsumer;

/**
 * Whether this node takes a primary's REPLICATE message (range epoch, replica role; see the replication package's
 * {@code ReplicaGate}): {@link Status#OK} to apply it, {@link Status#NOT_FOUND} to acknowledge a checkpoint copy the
 * tail superseded without applying it, any other status to refuse it with. Request thread only.
 */
@FunctionalInterface
public interface ReplicaAdmission
{
    /** A node outside any cluster: replicates nothing. */
    ReplicaAdmission NONE = (request, key) -> Status.WRONG_NODE;

    /**
     * @param key the message's key, hashed once when it arrived (its hash slot places it in a range); null for a DROP
     *            or a RECONCILE, which name their range.
     */
    Status admit(ReplicateRequestFlyweight request, HashedKey key);

    /**
     * The answer to an admitted RECONCILE query, encoded into {@code into} at {@code offset} (at most {@code capacity}
     * bytes): returns its length, or -1 when this node answers none.
     */
    default int answerReconcile(final ReplicateRequestFlyweight query, final MutableDirectBuffer into, final int offset,
        final int capacity)
    {
        return -1;
    }

    /**
     * An admitted reconcile fix-up ({@link ReplicateRequestFlyweight#isFixUp()}) is about to be applied: hand {@code
     * taker} the client write ids (writer, sequence) of the writes it undoes here, so that they are no longer
     * answered as applied. {@code key}: the fix-up's key, as given to {@link #admit}.
     */
    default void takeRevertedWriteIds(final ReplicateRequestFlyweight fixUp, final HashedKey key,
        final LongLongConsumer taker)
    {
    }

    /**
     * At start: the store says this node applied {@code sender}'s writes up to {@code sequence} of its {@code
     * incarnation} before it stopped ({@code WriteRecords}), though what they were is gone with the process.
     */
    default void recovered(final int sender, final long incarnation, final long sequence)
    {
    }
}
