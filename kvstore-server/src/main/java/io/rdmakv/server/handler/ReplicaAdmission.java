package io.rdmakv.server.handler;

import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.Status;

/**
 * Whether this node takes a primary's REPLICATE message (range epoch, replica role; see the replication package's
 * {@code ReplicaGate}): {@link Status#OK} to apply it, {@link Status#NOT_FOUND} to acknowledge a checkpoint copy the
 * tail superseded without applying it, any other status to refuse it with. Request thread only.
 */
@FunctionalInterface
public interface ReplicaAdmission
{
    /** A node outside any cluster: replicates nothing. */
    ReplicaAdmission NONE = request -> Status.WRONG_NODE;

    Status admit(ReplicateRequestFlyweight request);
}
