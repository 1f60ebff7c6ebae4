package io.rdmakv.server.replication;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.handler.KeyBatch;
import io.rdmakv.server.handler.ResponseSender;
import io.rdmakv.server.handler.WritePath;
import io.rdmakv.server.handler.RecordWrites;
import io.rdmakv.server.handler.WritePathDecorator;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;

/**
 * The outermost stage of a cluster node's client writes: a range this node took over from another primary holds its
 * writes, retries included, until the backups that stay in sync are reconciled ({@link Reconciles}). A held write is
 * answered WRONG_NODE naming this node (the client refreshes and retries) before its write id is looked at, so a
 * retry is never answered from a record the reconcile may still undo. The holds are {@link
 * io.rdmakv.server.cluster.TakeOvers}' (released by {@link Reconciles}); routing refuses the range's reads by the same
 * holds once the view delivered the state, and this stage covers the writes from the request thread's first sight of
 * it. Request thread only.
 */
final class HeldWhileReconciling extends WritePathDecorator
{
    private final ReplicatingWritePath primary;
    private final ServerCounters counters;
    private final ResponseSender responses;
    /** A batch's first key: its hash slot is every key's. */
    private final HashedKey firstKey = new HashedKey();

    /** @param next the path below (the write-id check); {@code primary} knows which ranges are held. */
    HeldWhileReconciling(final WritePath next, final ReplicatingWritePath primary, final ServerCounters counters,
        final ResponseSender responses)
    {
        super(next);
        this.primary = primary;
        this.counters = counters;
        this.responses = responses;
    }

    @Override
    public void put(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key, final DirectBuffer value, final int valueIndex, final int valueLength)
    {
        if (!held(endpoint, correlationId, key))
        {
            next.put(endpoint, correlationId, request, key, value, valueIndex, valueLength);
        }
    }

    @Override
    public void delete(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key)
    {
        if (!held(endpoint, correlationId, key))
        {
            next.delete(endpoint, correlationId, request, key);
        }
    }

    @Override
    public void batch(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final KeyBatch batch)
    {
        if (!held(endpoint, correlationId, batch.key(0, firstKey)))
        {
            next.batch(endpoint, correlationId, request, batch);
        }
    }

    @Override
    public void recordWrite(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key, final RecordWrites.Decision decision)
    {
        if (!held(endpoint, correlationId, key))
        {
            next.recordWrite(endpoint, correlationId, request, key, decision);
        }
    }

    /** Whether the key's range is held: then answered WRONG_NODE naming this node, as without a lease. */
    private boolean held(final Endpoint endpoint, final long correlationId, final HashedKey key)
    {
        final byte[] self = primary.holdingAddress(key);
        if (self == null)
        {
            return false;
        }
        counters.increment(ServerCounter.WRONG_NODE);
        responses.answerWrongNode(endpoint, correlationId, self);
        return true;
    }
}
