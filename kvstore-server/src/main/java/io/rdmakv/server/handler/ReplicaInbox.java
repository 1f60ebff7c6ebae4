package io.rdmakv.server.handler;

import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.transport.Endpoint;

/**
 * Where the request handler hands the REPLICATE messages of primaries (replicated writes, DROPs, a new primary's
 * RECONCILE queries and fix-ups): the one thing it knows of replication. The inbox answers each itself; its writes
 * go through a local write path of its own, whose duty cycle and flush the handler runs beside the client writes'.
 * Request thread only.
 */
public interface ReplicaInbox extends LocalWrites, AutoCloseable
{
    /** A primary's message to this node as a replica; answered by the inbox (now, or once durable). */
    void onReplicate(Endpoint endpoint, long correlationId, ReplicateRequestFlyweight request);

    /** The replica writes' duty cycle: complete writes that became durable. Returns the work done. */
    int doWork();

    /** Request thread, at shutdown: free the replica writes' path; writes still in it were never acknowledged. */
    @Override
    void close();
}
