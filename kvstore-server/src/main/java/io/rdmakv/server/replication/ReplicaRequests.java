package io.rdmakv.server.replication;

import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.KeyHasher;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.handler.KeyBatch;
import io.rdmakv.server.handler.LocalWrites;
import io.rdmakv.server.handler.Limits;
import io.rdmakv.server.handler.NodeWrites;
import io.rdmakv.server.handler.ReplicaInbox;
import io.rdmakv.server.handler.ResponseSender;
import io.rdmakv.server.handler.WritePath;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.server.store.RangeStore;
import io.rdmakv.server.store.DataVersions;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreException;
import io.rdmakv.transport.Endpoint;
import org.agrona.collections.LongLongConsumer;

/**
 * The replica's side of replication on the request thread: a primary's REPLICATE is admitted by range epoch and role
 * ({@link ReplicaAdmission}), then applied through this node's own local write path (store and pool, under its
 * durability; never replicated again) and answered once durable; a DROP clears what the replica holds of a range
 * before a catch-up. The client's write id a copy carries is recorded ({@link WriteIds}), so this node, once promoted,
 * answers the client's retry of it. A new primary's RECONCILE query is answered from what this node applied from the
 * previous primary ({@link ReplicaAdmission#answerReconcile}); its fix-ups take back the write ids of the writes they
 * undo ({@link WriteIds#forget}). Request thread only.
 */
final class ReplicaRequests implements ReplicaInbox
{
    private final ReplicaAdmission replicas;
    /** Null outside a cluster ({@link ReplicaAdmission#NONE} refuses every REPLICATE first). */
    private final WritePath writes;
    private final RocksStore store;
    private final PoolIndex index;
    private final ServerCounters counters;
    private final Limits limits;
    private final ResponseSender responses;
    /** The node's data versions: every replicated record's is observed, so a promoted replica issues higher. */
    private final DataVersions versions;
    private final WriteIds writeIds;
    /** The client writes' path: flushed before a DROP, with this side's own writes. */
    private final LocalWrites clientWrites;
    /** Forgets a write id a fix-up undid, and counts it. */
    private final LongLongConsumer undoneWriteIds;
    /** The replicated write's key, hashed once on arrival for admission and the write path (reused per REPLICATE). */
    private final HashedKey key = new HashedKey();
    /** A replicated atomic batch's entries, hashed on arrival (reused). */
    private final KeyBatch batch;

    /**
     * @param replicas     admits or refuses each message ({@link ReplicaAdmission#NONE} outside a cluster).
     * @param writes       the replica side's local write path, or null outside a cluster.
     * @param node         the node's store, pool, counters, limits and answers.
     * @param clientWrites the client writes' path (a DROP applies what it holds first).
     */
    ReplicaRequests(final ReplicaAdmission replicas, final WritePath writes, final NodeWrites node,
        final WriteIds writeIds, final LocalWrites clientWrites)
    {
        this.replicas = replicas;
        this.writes = writes;
        this.store = node.store();
        this.index = node.index();
        this.counters = node.counters();
        this.limits = node.limits();
        this.responses = node.responses();
        this.writeIds = writeIds;
        this.clientWrites = clientWrites;
        this.versions = node.versions();
        this.batch = new KeyBatch(KeyHasher.STANDARD);
        this.undoneWriteIds = (writer, sequence) ->
        {
            writeIds.forget(writer, sequence);
            counters.increment(ServerCounter.WRITE_IDS_UNDONE);
        };
    }

    /**
     * A primary's write to this replica: admitted by range epoch and role ({@link ReplicaAdmission}), then applied by
     * the local write path (store and pool, under this node's durability) and answered once durable. The primary
     * checked limits and routing; the key's slot must still lie in the message's range.
     */
    @Override
    public void onReplicate(final Endpoint endpoint, final long correlationId,
        final ReplicateRequestFlyweight request)
    {
        final int op = request.op();
        if (op == ReplicateRequestFlyweight.OP_BATCH)
        {
            onBatch(endpoint, correlationId, request);
            return;
        }
        final boolean keyed = op != ReplicateRequestFlyweight.OP_DROP && op != ReplicateRequestFlyweight.OP_RECONCILE;
        final HashedKey hashed = keyed ? key.wrap(request.buffer(), request.keyIndex(), request.keyLength()) : null;
        final Status admitted = replicas.admit(request, hashed);
        if (admitted == Status.NOT_FOUND)
        {
            responses.answer(endpoint, correlationId, Status.OK, 0, 0); // a checkpoint copy the tail superseded
            return;
        }
        if (admitted != Status.OK)
        {
            responses.answerError(endpoint, correlationId, admitted, admitted == Status.STALE_EPOCH ?
                "range epoch " + request.rangeEpoch() + " is older than this replica's, or it is no replica of it" :
                "this node replicates no range");
            return;
        }
        final boolean carriesRecord = op == ReplicateRequestFlyweight.OP_PUT || op == ReplicateRequestFlyweight.OP_COPY;
        if (request.keyLength() > limits.maxKeyBytes() ||
            request.valueLength() > ValueRecord.HEADER_LENGTH + limits.maxValueBytes())
        {
            counters.increment(ServerCounter.LIMIT_REJECTIONS);
            responses.answerError(endpoint, correlationId, Status.VALUE_TOO_LARGE, "replicated write beyond limits");
            return;
        }
        if (carriesRecord)
        {
            // The primary's record, stored as received: this replica keeps the primary's data version and expiry,
            // and issues versions above it once promoted.
            try
            {
                ValueRecord.check(request.buffer(), request.valueIndex(), request.valueLength());
            }
            catch (final ProtocolException ex)
            {
                responses.answerError(endpoint, correlationId, Status.MALFORMED, "replicated value: " + ex.getMessage());
                return;
            }
            versions.observe(ValueRecord.dataVersion(request.buffer(), request.valueIndex()));
        }
        if (request.op() == ReplicateRequestFlyweight.OP_RECONCILE)
        {
            final int length = replicas.answerReconcile(request, responses.valueBuffer(),
                ResponseFlyweight.VALUE_OFFSET, responses.valueCapacity());
            if (length < 0)
            {
                responses.answerError(endpoint, correlationId, Status.WRONG_NODE, "this node answers no reconcile");
                return;
            }
            responses.sendValue(endpoint, correlationId, length);
            return;
        }
        if (request.op() == ReplicateRequestFlyweight.OP_DROP)
        {
            dropRange(endpoint, correlationId, request.firstSlot(), request.lastSlot());
            return;
        }
        if (request.isFixUp())
        {
            replicas.takeRevertedWriteIds(request, key, undoneWriteIds); // undone here: a retry must apply them again
        }
        writeIds.beginReplicated(endpoint, correlationId, request, request.recordedAnswer(), System.nanoTime());
        if (request.hasSequence())
        {
            writeIds.appliedFrom(request.primary(), request.senderIncarnation(), request.replicationSequence());
        }
        if (request.op() == ReplicateRequestFlyweight.OP_DELETE)
        {
            writes.delete(endpoint, correlationId, request, key);
        }
        else
        {
            writes.put(endpoint, correlationId, request, key, request.buffer(), request.valueIndex(),
                request.valueLength());
        }
        writeIds.endCurrent(); // what it carried went into its batch
    }

    /**
     * A primary's atomic batch: every key in one slot of the message's range, admitted as one message (its keys
     * recorded for reconcile and catch-up), every record checked before anything is written, then applied by the
     * local path in ONE write batch and acknowledged once. Nothing is applied when any entry is refused.
     */
    private void onBatch(final Endpoint endpoint, final long correlationId, final ReplicateRequestFlyweight request)
    {
        if (batch.wrap(request.buffer(), request.batchEntriesIndex(), request.batchEntriesLength(),
            request.batchCount()) < 0)
        {
            counters.increment(ServerCounter.MALFORMED_REQUESTS);
            responses.answerError(endpoint, correlationId, Status.CROSSSLOT, "replicated batch spans hash slots");
            return;
        }
        final Status admitted = replicas.admit(request, batch.key(0, key));
        if (admitted != Status.OK)
        {
            responses.answerError(endpoint, correlationId, admitted == Status.NOT_FOUND ? Status.MALFORMED : admitted,
                admitted == Status.STALE_EPOCH ? "range epoch " + request.rangeEpoch() + " is older than this " +
                    "replica's, or it is no replica of it" : "this node replicates no range");
            return;
        }
        for (int i = 0; i < batch.count(); i++)
        {
            final HashedKey entryKey = batch.key(i, key);
            if (entryKey.length() > limits.maxKeyBytes() ||
                batch.valueLength(i) > ValueRecord.HEADER_LENGTH + limits.maxValueBytes())
            {
                counters.increment(ServerCounter.LIMIT_REJECTIONS);
                responses.answerError(endpoint, correlationId, Status.VALUE_TOO_LARGE,
                    "replicated batch entry " + i + " beyond limits");
                return;
            }
            if (batch.isPut(i))
            {
                try
                {
                    ValueRecord.check(batch.buffer(), batch.valueIndex(i), batch.valueLength(i));
                }
                catch (final ProtocolException ex)
                {
                    responses.answerError(endpoint, correlationId, Status.MALFORMED,
                        "replicated batch entry " + i + ": " + ex.getMessage());
                    return;
                }
            }
        }
        for (int i = 0; i < batch.count(); i++)
        {
            if (batch.isPut(i))
            {
                versions.observe(ValueRecord.dataVersion(batch.buffer(), batch.valueIndex(i)));
            }
        }
        writeIds.beginReplicated(endpoint, correlationId, request, null, System.nanoTime());
        if (request.hasSequence())
        {
            writeIds.appliedFrom(request.primary(), request.senderIncarnation(), request.replicationSequence());
        }
        writes.batch(endpoint, correlationId, request, batch);
        writeIds.endCurrent(); // what it carried went into its batch
    }

    /**
     * A catch-up of the range begins: what this replica holds of it (left from an earlier membership) goes, from the
     * pool (key by key, on this thread) and from RocksDB (one range deletion); writes queued before are applied first.
     */
    private void dropRange(final Endpoint endpoint, final long correlationId, final int firstSlot, final int lastSlot)
    {
        clientWrites.flush(); // every write queued on this thread, client writes first, is applied before
        flush();
        try
        {
            final RangeStore ranges = store.ranges();
            ranges.scan(firstSlot, lastSlot, (key, value) ->
            {
                index.remove(key);
                return true;
            });
            ranges.drop(firstSlot, lastSlot);
        }
        catch (final StoreException ex)
        {
            responses.answerStoreFailure(endpoint, correlationId, ex);
            return;
        }
        responses.answer(endpoint, correlationId, Status.OK, 0, 0);
    }

    @Override
    public int flush()
    {
        return writes == null ? 0 : writes.flush();
    }

    @Override
    public int doWork()
    {
        return writes == null ? 0 : writes.doWork();
    }

    @Override
    public int inFlightWrites()
    {
        return writes == null ? 0 : writes.inFlightWrites();
    }

    @Override
    public void close()
    {
        if (writes != null)
        {
            writes.close();
        }
    }
}
