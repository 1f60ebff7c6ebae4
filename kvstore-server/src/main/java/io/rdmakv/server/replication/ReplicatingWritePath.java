package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.handler.WriteOutcome;
import io.rdmakv.server.handler.SlotRouter;
import io.rdmakv.server.handler.WritePath;
import io.rdmakv.server.store.RangeStore;
import io.rdmakv.server.store.StoreKeys;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.Worker;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The primary's write path in a cluster: a decorator over the local one. Each PUT/DELETE of a range this node is
 * primary of goes to the local path (WAL) and, at the same time, as a REPLICATE message under the range epoch to the
 * range's in-sync backups and learners; the write is made visible (pool) and answered once the local write and every
 * in-sync backup acknowledged it. Learners get the stream but are not waited for.
 *
 * <pre>
 *   put/delete -> range := view.current().rangeOf(slot)
 *              -> REPLICATE(epoch) to backups + learners  ||  local.put/delete (WAL, durability setting)
 *   local done + all backups OK -> outcome (pool, answer OK)          (in any order; copies kept if local is first)
 *   backup STALE_EPOCH          -> answer WRONG_NODE (this primary is stale: the client refreshes and retries)
 *   backup link down / timeout  -> view.removeFromInSync(range, epoch, backup) -> committed: stop waiting for it
 *                                                                             -> refused: answer BUSY (retryable)
 *   no lease (view.holdsLease false) -> BUSY, nothing written
 *   the newest map says another primary, or FENCED -> WRONG_NODE (that primary, or this node: refresh), nothing written
 * </pre>
 * The last rule matters because routing follows the map a notification later than {@code view.current()} does: a
 * write routing still admits, on a node the newest map has already moved the range away from, would otherwise be
 * written here alone and answered (the new primary never sees it: a lost write).
 * Request thread only; the coordinator's answers and link hand-offs come back through an inbox it drains.
 */
public final class ReplicatingWritePath implements WritePath
{
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatingWritePath.class);
    private static final int INBOX_CAPACITY = 4096;
    /** A write no replica needs: the local outcome passes straight through (no allocation). */
    private static final ReplicatedWrite LOCAL_ONLY = new ReplicatedWrite(0, null, 0, false, 0, 0, 0, new int[0]);

    private final WritePath local;
    private final WriteOutcome outcome;
    /** Set by {@link #follow} on any thread; taken over by the request thread at its next write or duty cycle. */
    private volatile ClusterView followed;
    /** Null until {@link #follow} (until then every write is the local one only). Request thread. */
    private ClusterView view;
    private int localNodeId;
    /** The last state looked at, and whether this node replicates anything in it. */
    private ClusterState checkedState;
    private boolean replicating;
    /** The routing of {@link #checkedState}: which slots this node may take writes for now. */
    private SlotRouter writable;
    private final Worker worker;
    private final String transport;
    private final byte[] secret;
    private final long timeoutNanos;
    private final Runnable wakeUp;

    private final ExecutorService connector;
    private final Int2ObjectHashMap<PeerLink> links = new Int2ObjectHashMap<>();
    private final ArrayDeque<ReplicatedWrite> localOrder = new ArrayDeque<>();
    /** Every write not answered yet, in arrival order: they are answered (and reach the pool) in this order only. */
    private final ArrayDeque<ReplicatedWrite> inOrder = new ArrayDeque<>();
    private final Long2ObjectHashMap<ReplicatedWrite> bySequence = new Long2ObjectHashMap<>();
    /** (first slot, node) pairs whose removal from the in-sync set was asked and not answered yet. */
    private final Set<Long> removing = new HashSet<>();
    private final ManyToOneConcurrentArrayQueue<Runnable> inbox = new ManyToOneConcurrentArrayQueue<>(INBOX_CAPACITY);
    private final ReplicateRequestFlyweight message = new ReplicateRequestFlyweight();
    private final UnsafeBuffer messageBuffer;
    private final PeerLink.Listener linkListener = new LinkListener();
    private final RangeStore ranges;
    /** Catch-ups of learners of ranges this node is primary of, by learner node id. */
    private final Int2ObjectHashMap<CatchUp> catchUps = new Int2ObjectHashMap<>();
    /** Per replica: writes sent, answered, last answer (read by status on other threads). */
    private final ReplicaLag lag = new ReplicaLag();
    private boolean reviewLearners = true;
    private long nextSequence = 1;
    private long nextCopyId = 1;

    /**
     * @param local         the local path, built to report to {@link #localOutcome()}: use {@link #factory}.
     * @param outcome       pool update and answer, for writes every in-sync replica has.
     * @param maxMessage    largest REPLICATE message (header + key + value).
     * @param timeoutMillis how long a backup may take to acknowledge before it is asked out of the in-sync set.
     */
    private ReplicatingWritePath(final java.util.function.Function<WriteOutcome, WritePath> local,
        final WriteOutcome outcome, final RangeStore ranges, final Worker worker,
        final String transport, final byte[] secret, final int maxMessage, final long timeoutMillis,
        final Runnable wakeUp)
    {
        this.ranges = ranges;
        this.outcome = outcome;
        this.worker = worker;
        this.transport = transport;
        this.secret = secret;
        this.timeoutNanos = timeoutMillis * 1_000_000L;
        this.wakeUp = wakeUp;
        this.messageBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(maxMessage));
        this.connector = Executors.newSingleThreadExecutor(r ->
        {
            final Thread t = new Thread(r, "rdmakv-replication-connect");
            t.setDaemon(true);
            return t;
        });
        this.local = local.apply(new LocalOutcome());
    }

    /**
     * Replicate as {@code clusterView} says from now on (any thread; the request thread takes it over at its next
     * duty cycle). Before, every write is the local one only.
     */
    void follow(final ClusterView clusterView)
    {
        followed = clusterView;
        clusterView.subscribe(state -> post(() -> reviewLearners = true));
        wakeUp.run();
    }

    /** Whether a view is followed (taking it over from {@link #follow} the first time). */
    private boolean hasView()
    {
        if (view == null)
        {
            final ClusterView f = followed;
            if (f == null)
            {
                return false;
            }
            localNodeId = f.localNodeId();
            view = f;
            reviewLearners = true;
        }
        return true;
    }

    /** Built by {@link Replication#writePath()}. */
    static ReplicatingWritePath create(final java.util.function.Function<WriteOutcome, WritePath> local,
        final WriteOutcome outcome, final RangeStore ranges, final Worker worker, final String transport,
        final byte[] secret, final int maxMessage, final long timeoutMillis, final Runnable wakeUp)
    {
        return new ReplicatingWritePath(local, outcome, ranges, worker, transport, secret, maxMessage, timeoutMillis,
            wakeUp);
    }

    /** Whether any write may need a replica: this node is primary of a range with backups or learners. */
    private boolean replicating()
    {
        if (!hasView())
        {
            return false;
        }
        final ClusterState state = view.current();
        if (state != checkedState)
        {
            checkedState = state;
            final ClusterMember self = state.member(localNodeId);
            writable = SlotRouter.of(state, localNodeId, self == null ? "" : self.host() + ':' + self.controlPort());
            replicating = false;
            for (final SlotRange r : state.ranges())
            {
                replicating |= r.primary() == localNodeId && (!r.backups().isEmpty() || !r.learners().isEmpty());
            }
        }
        return replicating || !inOrder.isEmpty();
    }

    @Override
    public void put(final Endpoint endpoint, final long correlationId, final DirectBuffer buffer, final int keyIndex,
        final int keyLength, final int valueIndex, final int valueLength)
    {
        if (notPrimaryNow(endpoint, correlationId, buffer, keyIndex, keyLength))
        {
            return;
        }
        if (!replicating())
        {
            localOrder.add(LOCAL_ONLY);
            local.put(endpoint, correlationId, buffer, keyIndex, keyLength, valueIndex, valueLength);
            return;
        }
        if (!view.holdsLease(System.nanoTime()))
        {
            outcome.failed(endpoint, correlationId, Status.BUSY, "node lease not held: writes refused until renewed");
            return;
        }
        start(endpoint, correlationId, false, buffer, keyIndex, keyLength, buffer, valueIndex, valueLength);
        local.put(endpoint, correlationId, buffer, keyIndex, keyLength, valueIndex, valueLength);
    }

    @Override
    public void delete(final Endpoint endpoint, final long correlationId, final DirectBuffer buffer, final int keyIndex,
        final int keyLength)
    {
        if (notPrimaryNow(endpoint, correlationId, buffer, keyIndex, keyLength))
        {
            return;
        }
        if (!replicating())
        {
            localOrder.add(LOCAL_ONLY);
            local.delete(endpoint, correlationId, buffer, keyIndex, keyLength);
            return;
        }
        if (!view.holdsLease(System.nanoTime()))
        {
            outcome.failed(endpoint, correlationId, Status.BUSY, "node lease not held: writes refused until renewed");
            return;
        }
        start(endpoint, correlationId, true, buffer, keyIndex, keyLength, buffer, 0, 0);
        local.delete(endpoint, correlationId, buffer, keyIndex, keyLength);
    }

    /**
     * Refuses (WRONG_NODE, nothing written) a write of a slot the newest map this node knows does not let it write:
     * another node is primary, or the range is FENCED (a cut-over under way). Returns true when refused.
     */
    private boolean notPrimaryNow(final Endpoint endpoint, final long correlationId, final DirectBuffer key,
        final int keyIndex, final int keyLength)
    {
        if (!hasView())
        {
            return false; // no view followed: a single node's local writes
        }
        replicating(); // brings the routing up to the newest map
        final SlotRouter routing = writable;
        final int slot = StoreKeys.slotOf(key, keyIndex, keyLength);
        if (routing.isLocal(slot))
        {
            return false;
        }
        outcome.failed(endpoint, correlationId, Status.WRONG_NODE,
            new String(routing.ownerAddress(slot), StandardCharsets.UTF_8));
        return true;
    }

    /** Record the write and send it to the range's replicas (before the local write starts). */
    private void start(final Endpoint endpoint, final long correlationId, final boolean delete,
        final DirectBuffer key, final int keyIndex, final int keyLength,
        final DirectBuffer value, final int valueIndex, final int valueLength)
    {
        if (reviewLearners)
        {
            reviewLearners();
        }
        final ClusterState state = view.current();
        final SlotRange range = state.ranges().isEmpty() ? null :
            state.rangeOf(StoreKeys.slotOf(key, keyIndex, keyLength));
        if (range == null)
        {
            final ReplicatedWrite unmapped = new ReplicatedWrite(nextSequence++, endpoint, correlationId, delete, 0, 0,
                System.nanoTime(), new int[0]); // no map yet: nobody to replicate to (routing refuses these first)
            localOrder.add(unmapped);
            inOrder.add(unmapped);
            return;
        }
        final boolean primary = range.primary() == localNodeId;
        final List<Integer> backups = primary ? range.backups() : List.of();
        final List<Integer> learners = primary ? activeLearners(range) : List.of();
        int counted = 0;
        for (final int learner : learners)
        {
            counted += catchUps.get(learner).counts() ? 1 : 0;
        }
        final int[] awaiting = new int[backups.size() + counted];
        for (int i = 0; i < backups.size(); i++)
        {
            awaiting[i] = backups.get(i);
        }
        int next = backups.size();
        for (final int learner : learners)
        {
            if (catchUps.get(learner).counts())
            {
                awaiting[next++] = learner;
            }
        }
        final long sequence = nextSequence++;
        final ReplicatedWrite write = new ReplicatedWrite(sequence, endpoint, correlationId, delete, range.firstSlot(),
            range.epoch(), System.nanoTime(), awaiting);
        localOrder.add(write);
        inOrder.add(write);
        if (!primary || (backups.isEmpty() && learners.isEmpty()))
        {
            return;
        }
        bySequence.put(sequence, write);
        final int length = message.wrap(messageBuffer, 0, messageBuffer.capacity())
            .header(MessageType.REPLICATE_REQUEST, sequence)
            .write(localNodeId, range.firstSlot(), range.lastSlot(), range.epoch(),
                delete ? ReplicateRequestFlyweight.OP_DELETE : ReplicateRequestFlyweight.OP_PUT,
                key, keyIndex, keyLength, value, valueIndex, valueLength)
            .encodedLength();
        for (final int backup : backups)
        {
            if (!send(backup, length))
            {
                replicaFailed(backup, write.firstSlot, write.rangeEpoch, "send to node " + backup + " refused");
            }
            else
            {
                lag.sent(backup);
            }
        }
        for (final int learner : learners)
        {
            final CatchUp catchUp = catchUps.get(learner);
            catchUp.lastTailSent = sequence;
            if (!send(learner, length))
            {
                endCatchUp(catchUp, "send to learner " + learner + " refused");
            }
            else
            {
                lag.sent(learner);
            }
        }
    }

    /** Learners of {@code range} whose catch-up is under way (they get the tail). */
    private List<Integer> activeLearners(final SlotRange range)
    {
        if (catchUps.isEmpty())
        {
            return List.of();
        }
        final List<Integer> active = new ArrayList<>(2);
        for (final int learner : range.learners())
        {
            final CatchUp c = catchUps.get(learner);
            if (c != null && c.isActive() && c.firstSlot == range.firstSlot())
            {
                active.add(learner);
            }
        }
        return active;
    }

    /**
     * Begin a catch-up for each learner of a range this node is primary of that has none under way (one per learner
     * at a time). One that ended is begun again at once for another range or epoch, else after the replication
     * timeout (a learner is never left behind for want of a configuration change); until then the review repeats.
     */
    private void reviewLearners()
    {
        if (!hasView())
        {
            return;
        }
        reviewLearners = false;
        final long now = System.nanoTime();
        for (final SlotRange range : view.current().ranges())
        {
            if (range.primary() != localNodeId)
            {
                continue;
            }
            for (final int learner : range.learners())
            {
                final CatchUp existing = catchUps.get(learner);
                if (existing == null || !existing.isActive() && (existing.firstSlot != range.firstSlot() ||
                    existing.beganAtEpoch != range.epoch() || now - existing.endedNanos() >= timeoutNanos))
                {
                    beginCatchUp(range, learner);
                }
                else if (!existing.isActive() || existing.firstSlot != range.firstSlot())
                {
                    reviewLearners = true; // waiting for the retry, or for this learner's other catch-up
                }
            }
        }
    }

    private void beginCatchUp(final SlotRange range, final int learner)
    {
        final CatchUp c = new CatchUp(learner, range.firstSlot(), range.lastSlot(), nextSequence, range.epoch());
        catchUps.put(learner, c);
        LOG.info("catch-up of node {} on slots {}..{} begins (epoch {})", learner, range.firstSlot(),
            range.lastSlot(), range.epoch());
        final int length = message.wrap(messageBuffer, 0, messageBuffer.capacity())
            .header(MessageType.REPLICATE_REQUEST, CatchUp.COPY_BIT)
            .write(localNodeId, range.firstSlot(), range.lastSlot(), range.epoch(), ReplicateRequestFlyweight.OP_DROP,
                messageBuffer, 0, 0, messageBuffer, 0, 0)
            .encodedLength();
        c.dropSent();
        if (!send(learner, length))
        {
            endCatchUp(c, "send to learner " + learner + " refused");
        }
    }

    /** Catch-ups waiting for the writes before them to be durable locally start reading their checkpoint. */
    private int advanceCatchUps()
    {
        int work = 0;
        final ReplicatedWrite oldestLocal = localOrder.peek();
        for (final CatchUp c : catchUps.values())
        {
            if (c.phase() == CatchUp.Phase.LOCAL && (oldestLocal == null || oldestLocal.sequence >= c.startSequence))
            {
                c.startCopy(ranges, (key, value) -> post(() -> sendCopy(c, key, value)),
                    failure -> post(() -> copyRead(c, failure)));
                work++;
            }
        }
        return work;
    }

    private void sendCopy(final CatchUp c, final byte[] key, final byte[] value)
    {
        if (!c.isActive())
        {
            return;
        }
        final SlotRange range = view.current().rangeOf(c.firstSlot);
        final int length = message.wrap(messageBuffer, 0, messageBuffer.capacity())
            .header(MessageType.REPLICATE_REQUEST, CatchUp.COPY_BIT | nextCopyId++)
            .write(localNodeId, c.firstSlot, c.lastSlot, range.epoch(), ReplicateRequestFlyweight.OP_COPY,
                new UnsafeBuffer(key), 0, key.length, new UnsafeBuffer(value), 0, value.length)
            .encodedLength();
        c.copySent();
        if (!send(c.learner, length))
        {
            endCatchUp(c, "send to learner " + c.learner + " refused");
        }
    }

    private void copyRead(final CatchUp c, final Throwable failure)
    {
        if (failure != null)
        {
            endCatchUp(c, "reading the checkpoint failed: " + failure.getMessage());
            return;
        }
        if (c.copyFinished())
        {
            c.startCounting(c.lastTailSent);
            maybePromote(c);
        }
    }

    private void maybePromote(final CatchUp c)
    {
        if (!c.readyToPromote())
        {
            return;
        }
        c.promoting();
        final long epoch = view.current().rangeOf(c.firstSlot).epoch();
        view.promoteLearner(c.firstSlot, epoch, c.learner).whenComplete((state, failure) -> post(() ->
        {
            if (failure == null && state.rangeOf(c.firstSlot).backups().contains(c.learner))
            {
                LOG.info("node {} caught up on slots {}..{} ({} entries copied) and is an in-sync backup", c.learner,
                    c.firstSlot, c.lastSlot, c.copiesAcked());
                c.done();
                reviewLearners = true; // the learner may wait to catch up on another range
            }
            else
            {
                endCatchUp(c, "promotion refused: " + (failure == null ? "not listed" : failure.getMessage()));
            }
        }));
    }

    /** End a catch-up; writes that waited for the learner (counting) stop waiting: it is no in-sync backup. */
    private void endCatchUp(final CatchUp c, final String reason)
    {
        if (!c.isActive())
        {
            return;
        }
        c.end(reason);
        reviewLearners = true; // begun again if it is still a learner (see reviewLearners)
        if (view.current().rangeOf(c.firstSlot).backups().contains(c.learner))
        {
            return;
        }
        for (final ReplicatedWrite w : new ArrayList<>(bySequence.values()))
        {
            if (w.firstSlot == c.firstSlot && w.release(c.learner))
            {
                drainCompleted();
            }
        }
    }

    @Override
    public int flush()
    {
        return local.flush() + drainInbox();
    }

    @Override
    public int doWork()
    {
        int work = drainInbox() + local.doWork();
        if (reviewLearners)
        {
            reviewLearners();
        }
        if (!catchUps.isEmpty())
        {
            work += advanceCatchUps();
        }
        final ReplicatedWrite oldest = inOrder.peek();
        if (oldest != null && oldest.awaitingCount > 0 && System.nanoTime() - oldest.sentNanos > timeoutNanos)
        {
            for (final int node : oldest.awaiting.clone())
            {
                if (node >= 0)
                {
                    replicaFailed(node, oldest.firstSlot, oldest.rangeEpoch,
                        "node " + node + " did not acknowledge within " + timeoutNanos / 1_000_000 + " ms");
                    work++;
                }
            }
        }
        return work;
    }

    /** How far behind each replica this node sends writes to is (any thread). */
    ReplicaLag lag()
    {
        return lag;
    }

    @Override
    public int inFlightWrites()
    {
        return local.inFlightWrites() + bySequence.size();
    }

    @Override
    public void close()
    {
        local.close();
        links.values().forEach(PeerLink::close);
        connector.shutdownNow();
    }

    /** Runs a task posted from another thread on the request thread, and wakes it. */
    void post(final Runnable task)
    {
        while (!inbox.offer(task))
        {
            Thread.onSpinWait(); // bounded by coordinator answers and handshakes in flight
        }
        wakeUp.run();
    }

    private int drainInbox()
    {
        return inbox.drain(Runnable::run, INBOX_CAPACITY);
    }

    /** Send the message in {@link #messageBuffer} to a replica; false when it cannot go (or the node is unknown). */
    private boolean send(final int nodeId, final int length)
    {
        final PeerLink link = link(nodeId);
        return link != null && link.send(messageBuffer, 0, length);
    }

    private PeerLink link(final int nodeId)
    {
        PeerLink link = links.get(nodeId);
        if (link == null)
        {
            final ClusterMember member = view.current().member(nodeId);
            if (member == null)
            {
                LOG.warn("replication: node {} is a replica but not a member of the map", nodeId);
                return null;
            }
            link = new PeerLink(member, worker, transport, secret, connector, this::post, linkListener);
            links.put(nodeId, link);
        }
        return link;
    }

    /**
     * A backup failed for the writes of range {@code firstSlot} at {@code rangeEpoch}: ask the coordinator to take it
     * out of the in-sync set (once per range and node at a time). Until that is committed, no write waiting for it is
     * answered; if refused, those writes fail with BUSY.
     */
    private void replicaFailed(final int nodeId, final int firstSlot, final long rangeEpoch, final String reason)
    {
        final CatchUp catchUp = catchUps.get(nodeId);
        if (catchUp != null && catchUp.isActive() && catchUp.firstSlot == firstSlot)
        {
            endCatchUp(catchUp, reason); // a learner, not in sync: nothing to ask the coordinator
            return;
        }
        final Long key = ((long)firstSlot << 32) | nodeId;
        if (!removing.add(key))
        {
            return;
        }
        LOG.warn("replication: {}; asking to remove node {} from the in-sync set of range {} (epoch {})", reason,
            nodeId, firstSlot, rangeEpoch);
        view.removeFromInSync(firstSlot, rangeEpoch, nodeId).whenComplete((state, failure) -> post(() ->
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
        for (final ReplicatedWrite w : new ArrayList<>(bySequence.values()))
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
                drainCompleted();
            }
        }
    }

    /** Answer the writes at the head of the arrival order that are complete (in order: the pool never goes back). */
    private void drainCompleted()
    {
        ReplicatedWrite w;
        while ((w = inOrder.peek()) != null && w.isComplete())
        {
            inOrder.poll();
            finish(w);
        }
    }

    private void finish(final ReplicatedWrite w)
    {
        w.finished = true;
        bySequence.remove(w.sequence);
        if (w.failure != null)
        {
            outcome.failed(w.endpoint, w.correlationId, w.failure, w.failureReason);
            return;
        }
        final UnsafeBuffer k = new UnsafeBuffer(w.key);
        if (w.delete)
        {
            outcome.deleteDurable(w.endpoint, w.correlationId, k, 0, w.key.length, w.existed);
        }
        else
        {
            outcome.putDurable(w.endpoint, w.correlationId, k, 0, w.key.length, new UnsafeBuffer(w.value), 0,
                w.value.length);
        }
    }

    /** Whether {@code w}, its local write just reported, can be answered at once (from the local buffers). */
    private boolean answerableNow(final ReplicatedWrite w)
    {
        if (w.failure == null && w.awaitingCount == 0 && inOrder.peek() == w)
        {
            inOrder.poll();
            w.finished = true;
            bySequence.remove(w.sequence);
            return true;
        }
        return false;
    }

    /** The local path's reports, in submission order: pass through, or keep copies until the backups answer. */
    private final class LocalOutcome implements WriteOutcome
    {
        @Override
        public void putDurable(final Endpoint endpoint, final long correlationId, final DirectBuffer key,
            final int keyIndex, final int keyLength, final DirectBuffer value, final int valueIndex,
            final int valueLength)
        {
            final ReplicatedWrite w = localOrder.poll();
            if (w == LOCAL_ONLY)
            {
                outcome.putDurable(endpoint, correlationId, key, keyIndex, keyLength, value, valueIndex, valueLength);
                return;
            }
            w.localDone = true;
            if (answerableNow(w))
            {
                outcome.putDurable(endpoint, correlationId, key, keyIndex, keyLength, value, valueIndex, valueLength);
                drainCompleted();
                return;
            }
            w.key = new byte[keyLength];
            key.getBytes(keyIndex, w.key);
            w.value = new byte[valueLength];
            value.getBytes(valueIndex, w.value);
            drainCompleted();
        }

        @Override
        public void deleteDurable(final Endpoint endpoint, final long correlationId, final DirectBuffer key,
            final int keyIndex, final int keyLength, final boolean existed)
        {
            final ReplicatedWrite w = localOrder.poll();
            if (w == LOCAL_ONLY)
            {
                outcome.deleteDurable(endpoint, correlationId, key, keyIndex, keyLength, existed);
                return;
            }
            w.localDone = true;
            w.existed = existed;
            if (answerableNow(w))
            {
                outcome.deleteDurable(endpoint, correlationId, key, keyIndex, keyLength, existed);
                drainCompleted();
                return;
            }
            w.key = new byte[keyLength];
            key.getBytes(keyIndex, w.key);
            drainCompleted();
        }

        @Override
        public void failed(final Endpoint endpoint, final long correlationId, final Status status, final String reason)
        {
            final ReplicatedWrite w = localOrder.poll();
            if (w == LOCAL_ONLY)
            {
                outcome.failed(endpoint, correlationId, status, reason);
                return;
            }
            w.localDone = true;
            w.failure = status;
            w.failureReason = reason;
            drainCompleted();
        }
    }

    /** Answers and failures of the links, on the request thread. */
    private final class LinkListener implements PeerLink.Listener
    {
        @Override
        public void onAck(final int nodeId, final long correlationId, final Status status)
        {
            final CatchUp catchUp = catchUps.get(nodeId);
            if ((correlationId & CatchUp.COPY_BIT) != 0)
            {
                if (catchUp != null && catchUp.isActive())
                {
                    if (!catchUp.copyAcked(status))
                    {
                        endCatchUp(catchUp, "learner " + nodeId + " refused a copy: " + status);
                    }
                    else if (catchUp.copyComplete())
                    {
                        copyRead(catchUp, null);
                    }
                }
                return;
            }
            lag.acked(nodeId, System.nanoTime());
            if (catchUp != null && catchUp.isActive())
            {
                if (status == Status.OK || status == Status.NOT_FOUND)
                {
                    catchUp.tailAcked(correlationId);
                    maybePromote(catchUp);
                }
                else
                {
                    endCatchUp(catchUp, "learner " + nodeId + " refused a write: " + status);
                }
            }
            final ReplicatedWrite w = bySequence.get(correlationId);
            if (w == null || !w.awaits(nodeId))
            {
                return; // a learner's answer, or a write that finished already
            }
            if (status == Status.OK || status == Status.NOT_FOUND)
            {
                w.release(nodeId);
            }
            else if (status == Status.STALE_EPOCH)
            {
                // This node is no longer the range's primary: the client refreshes its map and retries there. The
                // local copy of the write (it may be applied here) is never served: this node left the range or
                // catches up as a learner before it counts again.
                LOG.debug("replica {} holds range {} at a newer epoch than {}: not its primary any more", nodeId,
                    w.firstSlot, w.rangeEpoch);
                replicating(); // the routing of the newest map
                w.fail(Status.WRONG_NODE,
                    new String(writable.ownerAddress(w.firstSlot), StandardCharsets.UTF_8));
            }
            else
            {
                replicaFailed(nodeId, w.firstSlot, w.rangeEpoch, "node " + nodeId + " answered " + status);
                return;
            }
            drainCompleted();
        }

        @Override
        public void onLinkDown(final int nodeId, final String reason)
        {
            lag.forget(nodeId);
            final CatchUp catchUp = catchUps.get(nodeId);
            if (catchUp != null)
            {
                endCatchUp(catchUp, reason);
            }
            for (final ReplicatedWrite w : new ArrayList<>(bySequence.values()))
            {
                if (w.awaits(nodeId))
                {
                    replicaFailed(nodeId, w.firstSlot, w.rangeEpoch, reason);
                }
            }
        }
    }
}
