package io.rdmakv.server.replication;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.LongLongConsumer;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;

/**
 * A replica's check of each REPLICATE message against its own view of the cluster, and the catch-up rule.
 *
 * <pre>
 *   newer epoch than here (this node's view lags the sender's)   -> accepted (the sender knows a later decision)
 *   this node is no backup or learner of the range here          -> STALE_EPOCH
 *   older epoch, from a node that is not the range's primary here -> STALE_EPOCH (the sender is no longer primary)
 *   older epoch from the range's primary (its replica set changed while the message travelled) -> accepted
 *   older epoch than one taken for the slot from another sender (a new primary)  -> STALE_EPOCH, even when this
 *                                node's lagging view still names that sender primary (its late writes must not land
 *                                after this node answered the new primary's RECONCILE query)
 *   PUT/DELETE with a replication sequence -> recorded in the sender's window ({@link ReplicaHistory})
 *   BATCH (an atomic multi-key write) -> each key recorded under the batch's one sequence; the tail memory of a
 *                                catch-up takes every key
 *   RECONCILE (a new primary's query) -> answered from the previous primary's window ({@link #answerReconcile})
 *   fix-up (a new primary's PUT/DELETE that undoes the previous primary's writes of the key past the query) -> the
 *                                write ids of those writes are taken back ({@link #takeRevertedWriteIds})
 *   DROP (a catch-up begins)     -> remember, from now on, the keys the tail (PUT/DELETE) writes in the range
 *   COPY (checkpoint entry)      -> NOT_FOUND (acknowledged, not applied) when the tail already wrote the key
 *   PUT/DELETE once this node is an in-sync backup of the range -> the catch-up's memory is dropped
 * </pre>
 * Request thread only.
 */
public final class ReplicaGate implements ReplicaAdmission
{
    /** Null until {@link #follow}: then nothing is replicated here. */
    private volatile ClusterView view;
    /** Per catching-up range (by first slot): the keys the tail wrote since the catch-up began. */
    private final Int2ObjectHashMap<Set<ByteBuffer>> catchUps = new Int2ObjectHashMap<>();
    /** Per slot: the newest range epoch a message was taken at, and from which sender. */
    private final long[] takenEpoch = new long[ClusterState.HASH_SLOT_COUNT];
    private final int[] takenFrom = new int[ClusterState.HASH_SLOT_COUNT];
    private final ReplicaHistory history;

    ReplicaGate(final ReplicaHistory history)
    {
        this.history = history;
    }

    /** Take replicated writes as {@code clusterView} says from now on (any thread). */
    void follow(final ClusterView clusterView)
    {
        view = clusterView;
    }

    @Override
    public Status admit(final ReplicateRequestFlyweight request, final HashedKey key)
    {
        final ClusterView view = this.view;
        if (view == null)
        {
            return Status.WRONG_NODE; // no cluster view (yet): this node replicates nothing
        }
        final int op = request.op();
        final int hashSlot = key == null ? request.firstSlot() : key.hashSlot(); // DROP, RECONCILE: their range
        if (view.current().ranges().isEmpty())
        {
            return Status.STALE_EPOCH; // no map here yet: cannot tell the sender is current
        }
        final SlotRange range = view.current().rangeOf(hashSlot);
        if (!range.contains(request.firstSlot()) || !range.contains(request.lastSlot()))
        {
            return Status.STALE_EPOCH; // the sender's range boundaries differ from ours: one of us is stale
        }
        final long epoch = request.rangeEpoch();
        final int self = view.localNodeId();
        if (epoch <= range.epoch() && (!range.backups().contains(self) && !range.learners().contains(self) ||
            epoch < range.epoch() && range.primary() != request.primary()))
        {
            return Status.STALE_EPOCH;
        }
        if (epoch < takenEpoch[hashSlot] && request.primary() != takenFrom[hashSlot])
        {
            return Status.STALE_EPOCH; // a newer primary's message was taken here: this sender is stale
        }
        taken(request.firstSlot(), request.lastSlot(), epoch, request.primary());
        final boolean batch = op == ReplicateRequestFlyweight.OP_BATCH;
        if (request.hasSequence())
        {
            final long writer = request.hasWriteId() ? request.writerId() : 0;
            final long writeSequence = request.hasWriteId() ? request.writeSequence() : 0;
            if (batch)
            {
                // Every key of the batch under its one sequence and write id: a new primary's reconcile fixes up
                // each key, and the batch's write id is taken back with the first of them.
                int entry = request.batchEntriesIndex();
                for (int i = 0; i < request.batchCount(); i++)
                {
                    history.record(request.primary(), request.senderIncarnation(), request.replicationSequence(),
                        hashSlot, writer, writeSequence, request.buffer(),
                        BatchWriteRequestFlyweight.entryKeyIndex(entry),
                        BatchWriteRequestFlyweight.entryKeyLength(request.buffer(), entry));
                    entry = BatchWriteRequestFlyweight.nextEntry(request.buffer(), entry);
                }
            }
            else
            {
                history.record(request.primary(), request.senderIncarnation(), request.replicationSequence(),
                    hashSlot, writer, writeSequence, request.buffer(), request.keyIndex(), request.keyLength());
            }
        }
        final Set<ByteBuffer> tail = catchUps.get(request.firstSlot());
        switch (op)
        {
            case ReplicateRequestFlyweight.OP_DROP ->
                catchUps.put(request.firstSlot(), new HashSet<>());
            case ReplicateRequestFlyweight.OP_RECONCILE ->
            {
                // answered by answerReconcile
            }
            case ReplicateRequestFlyweight.OP_COPY ->
            {
                if (tail != null && tail.contains(key(request.buffer(), request.keyIndex(), request.keyLength())))
                {
                    return Status.NOT_FOUND;
                }
            }
            default ->
            {
                if (tail != null)
                {
                    if (range.backups().contains(self) && epoch >= range.epoch())
                    {
                        catchUps.remove(request.firstSlot()); // promoted: the catch-up is over
                    }
                    else if (batch)
                    {
                        int entry = request.batchEntriesIndex();
                        for (int i = 0; i < request.batchCount(); i++)
                        {
                            tail.add(key(request.buffer(), BatchWriteRequestFlyweight.entryKeyIndex(entry),
                                BatchWriteRequestFlyweight.entryKeyLength(request.buffer(), entry)));
                            entry = BatchWriteRequestFlyweight.nextEntry(request.buffer(), entry);
                        }
                    }
                    else
                    {
                        tail.add(key(request.buffer(), request.keyIndex(), request.keyLength()));
                    }
                }
            }
        }
        return Status.OK;
    }

    @Override
    public int answerReconcile(final ReplicateRequestFlyweight query, final MutableDirectBuffer into, final int offset,
        final int capacity)
    {
        final int length = ReconcileAnswer.encode(history.window(query.reconciledPrimary()),
            query.reconciledIncarnation(), query.reconciledSequence(), query.firstSlot(), query.lastSlot(), into,
            offset, capacity);
        history.answered(query.primary(), query.firstSlot(), query.lastSlot(), query.reconciledPrimary(),
            query.reconciledIncarnation() == 0 ? 0 : query.reconciledSequence());
        return length;
    }

    @Override
    public void takeRevertedWriteIds(final ReplicateRequestFlyweight fixUp, final HashedKey key,
        final LongLongConsumer taker)
    {
        history.takeRevertedWriteIds(fixUp.primary(), key.hashSlot(), fixUp.buffer(), fixUp.keyIndex(),
            fixUp.keyLength(), taker);
    }

    @Override
    public void recovered(final int sender, final long incarnation, final long sequence)
    {
        history.recovered(sender, incarnation, sequence);
    }

    /** Remember, for slots {@code first..last}, that a message of {@code epoch} from {@code sender} was taken. */
    private void taken(final int first, final int last, final long epoch, final int sender)
    {
        if (epoch <= takenEpoch[first] && epoch <= takenEpoch[last])
        {
            return; // the common case: nothing newer (checked at the ends only, so a write costs no loop)
        }
        for (int s = first; s <= last; s++)
        {
            if (epoch > takenEpoch[s])
            {
                takenEpoch[s] = epoch;
                takenFrom[s] = sender;
            }
        }
    }

    /** Keys the tail wrote during the catch-up of the range starting at {@code firstSlot} (tests). */
    public int tailKeyCount(final int firstSlot)
    {
        final Set<ByteBuffer> tail = catchUps.get(firstSlot);
        return tail == null ? 0 : tail.size();
    }

    private static ByteBuffer key(final DirectBuffer buffer, final int index, final int length)
    {
        final byte[] copy = new byte[length];
        buffer.getBytes(index, copy);
        return ByteBuffer.wrap(copy);
    }
}
