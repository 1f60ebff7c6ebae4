package io.rdmakv.server.replication;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.handler.KeyBatch;
import io.rdmakv.server.cluster.TakeOvers;
import io.rdmakv.server.handler.UnwrittenAnswer;
import io.rdmakv.server.handler.WriteOutcome;
import io.rdmakv.server.handler.SlotRouter;
import io.rdmakv.server.handler.WritePath;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;
import org.agrona.collections.LongHashSet;
import io.rdmakv.server.counters.ServerCounter;

import java.nio.charset.StandardCharsets;
import java.util.List;

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
 *   answerUnwritten (a decision that wrote nothing) -> the same refusals, else answered behind the writes before it
 *   the newest map says another primary, or FENCED -> WRONG_NODE (that primary, or this node: refresh), nothing written
 * </pre>
 * The last rule matters because routing follows the map a notification later than {@code view.current()} does: a
 * write routing still admits, on a node the newest map has already moved the range away from, would otherwise be
 * written here alone and answered (the new primary never sees it: a lost write).
 * Each REPLICATE of a client write carries this node's incarnation (random, per start) and replication sequence
 * (one counter per node), which the replicas record ({@link ReplicaHistory}); a range this node takes over from
 * another primary holds its writes until the backups that stay in sync are reconciled ({@link Reconciles}; the
 * decorator above this path, {@link HeldWhileReconciling}, refuses them).
 * Request thread only; the coordinator's answers and link hand-offs come back through an inbox it drains. The parts:
 * {@link PendingWrites} (answer order), {@link ReplicaLinks} (links, send buffer, inbox), {@link LearnerCatchUps},
 * {@link InSyncRemovals} and {@link Reconciles}.
 */
public final class ReplicatingWritePath implements WritePath
{
    private final WritePath local;
    private final WriteOutcome outcome;
    private final ReplicationContext context;
    private final long timeoutNanos;
    private final long ackPollNanos;
    private final Runnable wakeUp;
    private final PendingWrites pending;
    private final ReplicaLinks links;
    /** The client's write id, carried by each copy so a promoted replica answers the client's retry of it. */
    private final WriteIds writeIds;
    /** Per replica: writes sent, answered, last answer (read by status on other threads). */
    private final ReplicaLag lag = new ReplicaLag();

    /** Set by {@link #follow} on any thread; taken over by the request thread at its next write or duty cycle. */
    private volatile ClusterView followed;
    /** The ranges taken over (set with {@link #followed}): held until their reconcile ends. */
    private volatile TakeOvers followedTakeOvers;
    private TakeOvers takeOvers;
    /** This node's {@code host:controlPort} (UTF-8), named when a held write is refused; set before the view. */
    private volatile byte[] selfAddress;
    /** Null until {@link #follow} (until then every write is the local one only). Request thread. */
    private ClusterView view;
    private int localNodeId;
    /** Built when the view is taken over. */
    private LearnerCatchUps catchUps;
    private InSyncRemovals removals;
    /** The last state looked at, and whether this node replicates anything in it. */
    private ClusterState checkedState;
    private boolean replicating;
    /** The routing of {@link #checkedState}: which slots this node may take writes for now. */
    private SlotRouter writable;
    private boolean reviewLearners = true;
    private long nextSequence = 1;
    /** What this node applied as a replica (a reconcile reads its window of the previous primary). */
    private final ReplicaHistory history;
    /** This run's incarnation (never 0) and the last replication sequence it sent. */
    private final long incarnation;
    private long replicationSequence;
    private Reconciles reconciles;
    /** A batch's first key (its hash slot is every key's). */
    private final HashedKey batchKey = new HashedKey();
    /** The key bytes of the batch being started (counted once, by {@link #batch}, for the window and the lag). */
    private int batchKeyBytes;
    /** A batch entry's key, for its length. */
    private final HashedKey entryKey = new HashedKey();
    /** The reconcile window a replica keeps per sender: this node's unanswered writes to a backup stay within it. */
    private final int windowEntries = ReplicaHistory.MAX_ENTRIES;
    private final int windowKeyBytes = ReplicaHistory.KEY_BYTES;
    /**
     * (first slot << 32 | node) of the in-sync backups whose link dropped while writes of that range awaited them: the
     * messages a drop loses are exactly those, so a later write sent on the reconnected link would leave a gap in the
     * middle of what the backup applied, which a reconcile (comparing prefixes) cannot see. Such a backup is sent no
     * write of the range until the view no longer lists it there (each write asks its removal again).
     */
    private final LongHashSet gapped = new LongHashSet();

    /**
     * @param local       the local path, reporting to {@code pending}'s {@link PendingWrites#localOutcome()}.
     * @param pending     the writes in flight, answered in order through the node's outcome (pool and answer).
     * @param history     what this node applied as a replica (a reconcile reads it).
     * @param incarnation this run's id in the replication sequence its REPLICATEs carry.
     * @param wakeUp      wakes the request thread from another thread.
     */
    ReplicatingWritePath(final ReplicationContext context, final WritePath local, final PendingWrites pending,
        final WriteIds writeIds, final ReplicaHistory history, final long incarnation, final Runnable wakeUp)
    {
        this.context = context;
        this.local = local;
        this.pending = pending;
        this.outcome = pending.outcome();
        this.writeIds = writeIds;
        this.history = history;
        this.incarnation = incarnation;
        this.timeoutNanos = context.timeoutMillis() * 1_000_000L;
        this.ackPollNanos = context.ackPollMicros() * 1_000L;
        this.wakeUp = wakeUp;
        this.links = new ReplicaLinks(context, nodeId ->
        {
            final ClusterView f = followed;
            return f == null ? null : f.current().member(nodeId);
        }, wakeUp, new LinkListener());
    }

    /**
     * Replicate as {@code clusterView} says from now on (any thread; the request thread takes it over at its next
     * duty cycle). Before, every write is the local one only.
     *
     * @param self      this node's advertised {@code host:controlPort}, named when a held write is refused.
     * @param takeOvers the ranges this node took over (it observes {@code clusterView} too); their reconciles
     *                  release them.
     */
    void follow(final ClusterView clusterView, final String self, final TakeOvers takeOvers)
    {
        selfAddress = self.getBytes(StandardCharsets.UTF_8);
        followedTakeOvers = takeOvers;
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
            takeOvers = followedTakeOvers;
            view = f;
            catchUps = new LearnerCatchUps(f, context.ranges(), links, pending, lag);
            removals = new InSyncRemovals(f, links, pending, catchUps);
            reconciles = new Reconciles(f, context, links, removals, history, incarnation,
                () -> ++replicationSequence, writeIds, takeOvers);
            reviewLearners = true;
        }
        return true;
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
            takeOvers.observe(state); // the first to see a state decides its take-overs (the view's thread or this)
            reconciles.observe(state);
            if (!gapped.isEmpty())
            {
                forgetGapsOutOfSync(state);
            }
            final ClusterMember self = state.member(localNodeId);
            writable = SlotRouter.of(state, localNodeId, self == null ? "" : self.host() + ':' + self.controlPort());
            replicating = false;
            for (final SlotRange r : state.ranges())
            {
                replicating |= r.primary() == localNodeId && (!r.backups().isEmpty() || !r.learners().isEmpty());
            }
        }
        return replicating || !pending.isEmpty();
    }

    @Override
    public void put(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key, final DirectBuffer value, final int valueIndex, final int valueLength)
    {
        if (notPrimaryNow(endpoint, correlationId, key))
        {
            return;
        }
        if (!replicating())
        {
            pending.addLocalOnly();
            local.put(endpoint, correlationId, request, key, value, valueIndex, valueLength);
            return;
        }
        if (!view.holdsLease(System.nanoTime()))
        {
            outcome.failed(endpoint, correlationId, Status.BUSY, "node lease not held: writes refused until renewed");
            return;
        }
        if (!withinWindows(endpoint, correlationId, key.hashSlot(), 1, key.length()))
        {
            return;
        }
        start(endpoint, correlationId, false, key, value, valueIndex, valueLength, null);
        local.put(endpoint, correlationId, request, key, value, valueIndex, valueLength);
    }

    @Override
    public void delete(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key)
    {
        if (notPrimaryNow(endpoint, correlationId, key))
        {
            return;
        }
        if (!replicating())
        {
            pending.addLocalOnly();
            local.delete(endpoint, correlationId, request, key);
            return;
        }
        if (!view.holdsLease(System.nanoTime()))
        {
            outcome.failed(endpoint, correlationId, Status.BUSY, "node lease not held: writes refused until renewed");
            return;
        }
        if (!withinWindows(endpoint, correlationId, key.hashSlot(), 1, key.length()))
        {
            return;
        }
        start(endpoint, correlationId, true, key, key.buffer(), 0, 0, null);
        local.delete(endpoint, correlationId, request, key);
    }

    /**
     * Refused as a write would be when this node may no longer decide for the key (another primary, FENCED, no lease:
     * the record read may be behind); else ordered behind every write taken before it ({@link PendingWrites}), one of
     * which the decision may have read from RocksDB while it still awaits a backup.
     */
    @Override
    public void answerUnwritten(final Endpoint endpoint, final long correlationId, final HashedKey key,
        final Status status, final long dataVersion, final long expiryMillis, final String reason)
    {
        if (notPrimaryNow(endpoint, correlationId, key))
        {
            return;
        }
        if (!replicating())
        {
            pending.addLocalOnly();
            local.answerUnwritten(endpoint, correlationId, key, status, dataVersion, expiryMillis, reason);
            return;
        }
        if (!view.holdsLease(System.nanoTime()))
        {
            outcome.failed(endpoint, correlationId, Status.BUSY, "node lease not held: writes refused until renewed");
            return;
        }
        pending.addUnwritten(new UnwrittenAnswer(endpoint, correlationId, status, dataVersion, expiryMillis, reason));
        local.answerUnwritten(endpoint, correlationId, key, status, dataVersion, expiryMillis, reason);
    }

    /** A replicated write awaits its backups: RocksDB holds it, and it is lost if this node dies before they have it. */
    @Override
    public boolean holdsUnansweredWrites()
    {
        return !pending.isEmpty();
    }

    /**
     * A GET that read RocksDB while replicated writes await their backups: ordered behind them as a decision that
     * wrote nothing is ({@link #answerUnwritten}), so it never answers a value (or an absence) that a write not yet
     * acknowledged made, which the next primary may not have.
     */
    @Override
    public void answerRead(final Endpoint endpoint, final long correlationId, final HashedKey key, final byte[] value,
        final long dataVersion)
    {
        pending.addUnwritten(UnwrittenAnswer.read(endpoint, correlationId, value, dataVersion));
        local.answerUnwritten(endpoint, correlationId, key, value == null ? Status.NOT_FOUND : Status.OK, dataVersion,
            0, null);
    }

    /**
     * An atomic multi-key write: as a PUT, with ONE REPLICATE (op BATCH) carrying every entry to each replica, which
     * applies it in one write batch and acknowledges it once; made visible and answered once the local batch and
     * every in-sync backup have it.
     */
    @Override
    public void batch(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final KeyBatch batch)
    {
        final HashedKey first = batch.key(0, batchKey);
        if (notPrimaryNow(endpoint, correlationId, first))
        {
            return;
        }
        if (!replicating())
        {
            pending.addLocalOnly();
            local.batch(endpoint, correlationId, request, batch);
            return;
        }
        if (!view.holdsLease(System.nanoTime()))
        {
            outcome.failed(endpoint, correlationId, Status.BUSY, "node lease not held: writes refused until renewed");
            return;
        }
        final int keyBytes = keyBytes(batch);
        if (!withinWindows(endpoint, correlationId, first.hashSlot(), batch.count(), keyBytes))
        {
            return;
        }
        batchKeyBytes = keyBytes;
        start(endpoint, correlationId, false, first, first.buffer(), 0, 0, batch);
        local.batch(endpoint, correlationId, request, batch);
    }

    /**
     * Whether the write ({@code entries} keys of {@code keyBytes}) leaves what each backup of its range has not
     * answered within the reconcile window a replica keeps per sender ({@link ReplicaHistory}: 16,384 keys, 512 KiB of
     * keys): then every write in flight when this node stops lies in its backups' windows, and a new primary reconciles
     * them instead of asking a backup out to catch up in full. Past it the write is refused BUSY (nothing written;
     * retryable), counted in {@code replication.windowFull}; the backup's answers make room, and one that stops
     * answering leaves the in-sync set after the replication timeout, as always.
     */
    private boolean withinWindows(final Endpoint endpoint, final long correlationId, final int hashSlot,
        final int entries, final int keyBytes)
    {
        final ClusterState state = view.current();
        final SlotRange range = state.ranges().isEmpty() ? null : state.rangeOf(hashSlot);
        if (range == null || range.primary() != localNodeId)
        {
            return true;
        }
        for (final int backup : range.backups())
        {
            if (!lag.admits(backup, entries, keyBytes, windowEntries, windowKeyBytes))
            {
                context.counters().increment(ServerCounter.REPLICATION_WINDOW_FULL);
                outcome.failed(endpoint, correlationId, Status.BUSY, "node " + backup + " has not answered " +
                    windowEntries + " keys or " + windowKeyBytes / 1024 + " KiB of keys of this node's writes (the " +
                    "reconcile window per sender): retry once it catches up");
                return false;
            }
        }
        return true;
    }

    /** The key bytes of every entry of {@code batch}. */
    private int keyBytes(final KeyBatch batch)
    {
        int sum = 0;
        for (int i = 0; i < batch.count(); i++)
        {
            sum += batch.key(i, entryKey).length();
        }
        return sum;
    }

    /**
     * This node's address when writes of {@code key}'s range are held ({@link HeldWhileReconciling}): a range taken
     * over from another primary, until its backups are reconciled; null when they are taken.
     */
    byte[] holdingAddress(final HashedKey key)
    {
        if (!hasView())
        {
            return null;
        }
        replicating(); // takes in a new state first: a range taken over is held from its first write on
        if (!takeOvers.holds(key.hashSlot()))
        {
            return null;
        }
        return selfAddress;
    }

    /**
     * Refuses (WRONG_NODE, nothing written) a write of a slot the newest map this node knows does not let it write:
     * another node is primary, or the range is FENCED (a cut-over under way). Returns true when refused.
     */
    private boolean notPrimaryNow(final Endpoint endpoint, final long correlationId, final HashedKey key)
    {
        if (!hasView())
        {
            return false; // no view followed: a single node's local writes
        }
        final int hashSlot = key.hashSlot();
        final SlotRouter routing = writableNow();
        if (routing.isLocal(hashSlot))
        {
            return false;
        }
        outcome.failed(endpoint, correlationId, Status.WRONG_NODE,
            new String(routing.ownerAddress(hashSlot), StandardCharsets.UTF_8));
        return true;
    }

    /** The routing of the newest map this node knows (a view is followed). */
    private SlotRouter writableNow()
    {
        replicating();
        return writable;
    }

    /**
     * Record the write and send it to the range's replicas (before the local write starts).
     *
     * @param batch an atomic batch (then {@code key} is its first key, and the message carries every entry), or null.
     */
    private void start(final Endpoint endpoint, final long correlationId, final boolean delete, final HashedKey key,
        final DirectBuffer value, final int valueIndex, final int valueLength, final KeyBatch batch)
    {
        if (reviewLearners || catchUps.wantsReview())
        {
            reviewLearners();
        }
        final ClusterState state = view.current();
        final SlotRange range = state.ranges().isEmpty() ? null :
            state.rangeOf(key.hashSlot());
        if (range == null)
        {
            // no map yet: nobody to replicate to (routing refuses these first)
            pending.add(new ReplicatedWrite(nextSequence++, endpoint, correlationId, delete, 0, 0, System.nanoTime(),
                new int[0]).batch(batch != null));
            return;
        }
        final boolean primary = range.primary() == localNodeId;
        final List<Integer> backups = primary ? range.backups() : List.of();
        final List<Integer> learners = primary ? catchUps.active(range) : List.of();
        int counted = 0;
        for (final int learner : learners)
        {
            counted += catchUps.counts(learner) ? 1 : 0;
        }
        final int[] awaiting = new int[backups.size() + counted];
        for (int i = 0; i < backups.size(); i++)
        {
            awaiting[i] = backups.get(i);
        }
        int next = backups.size();
        for (final int learner : learners)
        {
            if (catchUps.counts(learner))
            {
                awaiting[next++] = learner;
            }
        }
        final long sequence = nextSequence++;
        final ReplicatedWrite write = new ReplicatedWrite(sequence, endpoint, correlationId, delete, range.firstSlot(),
            range.epoch(), System.nanoTime(), awaiting).batch(batch != null);
        pending.add(write);
        if (!primary || (backups.isEmpty() && learners.isEmpty()))
        {
            return;
        }
        pending.track(write);
        final ReplicateRequestFlyweight copy = batch != null ?
            links.message(sequence).writeBatch(localNodeId, range.firstSlot(), range.lastSlot(), range.epoch(),
                batch.count(), batch.buffer(), batch.offset(), batch.length()) :
            links.message(sequence).write(localNodeId, range.firstSlot(), range.lastSlot(), range.epoch(),
                delete ? ReplicateRequestFlyweight.OP_DELETE : ReplicateRequestFlyweight.OP_PUT,
                key.buffer(), key.offset(), key.length(), value, valueIndex, valueLength);
        writeIds.appendCurrentTo(copy);
        copy.appendSequence(incarnation, ++replicationSequence);
        final int length = copy.encodedLength();
        final int entries = batch != null ? batch.count() : 1;
        final int keyBytes = batch != null ? batchKeyBytes : key.length();
        for (final int backup : backups)
        {
            if (!gapped.isEmpty() && gapped.contains(gapKey(range.firstSlot(), backup)))
            {
                context.counters().increment(ServerCounter.REPLICATION_WITHHELD);
                removals.replicaFailed(backup, write.firstSlot, write.rangeEpoch, "node " + backup + " missed writes " +
                    "when its link dropped: it takes no later one of the range while in sync");
            }
            else if (!links.send(backup, length))
            {
                removals.replicaFailed(backup, write.firstSlot, write.rangeEpoch, "send to node " + backup + " refused");
            }
            else
            {
                lag.sent(backup, entries, keyBytes);
            }
        }
        for (final int learner : learners)
        {
            catchUps.sendTail(learner, sequence, length, entries, keyBytes);
        }
    }

    private static long gapKey(final int firstSlot, final int node)
    {
        return ((long)firstSlot << 32) | (node & 0xFFFF_FFFFL);
    }

    /** Forget the gaps of backups {@code state} no longer lists in sync for the range (they catch up as learners). */
    private void forgetGapsOutOfSync(final ClusterState state)
    {
        final LongHashSet.LongIterator it = gapped.iterator();
        while (it.hasNext())
        {
            final long key = it.nextValue();
            final int firstSlot = (int)(key >>> 32);
            final int node = (int)key;
            final SlotRange range = state.ranges().isEmpty() ? null : state.rangeOf(firstSlot);
            if (range == null || range.firstSlot() != firstSlot || range.primary() != localNodeId ||
                !range.backups().contains(node))
            {
                it.remove();
            }
        }
    }

    /** Begin the catch-ups the view asks for (learners of ranges this node is primary of). */
    private void reviewLearners()
    {
        if (!hasView())
        {
            return;
        }
        reviewLearners = catchUps.review(nextSequence, timeoutNanos);
    }

    @Override
    public int flush()
    {
        return local.flush() + links.drain();
    }

    /** As the local path: a write waiting for its backups is not visible before its answer anyway. */
    @Override
    public boolean holdsWriteFor(final Endpoint endpoint, final HashedKey key)
    {
        return local.holdsWriteFor(endpoint, key);
    }

    @Override
    public int doWork()
    {
        int work = links.drain() + local.doWork();
        if (hasView())
        {
            replicating(); // a new state: reconciles of ranges taken over begin
            work += reconciles.advance(System.nanoTime(), timeoutNanos);
        }
        if (reviewLearners || catchUps != null && catchUps.wantsReview())
        {
            reviewLearners();
        }
        if (catchUps != null && !catchUps.isEmpty())
        {
            work += catchUps.advance();
        }
        final ReplicatedWrite oldest = pending.oldest();
        if (oldest != null && oldest.awaitingCount > 0)
        {
            final long waited = System.nanoTime() - oldest.sentNanos;
            if (waited > timeoutNanos)
            {
                for (final int node : oldest.awaiting.clone())
                {
                    if (node >= 0)
                    {
                        removals.replicaFailed(node, oldest.firstSlot, oldest.rangeEpoch,
                            "node " + node + " did not acknowledge within " + timeoutNanos / 1_000_000 + " ms");
                        work++;
                    }
                }
            }
            else if (waited < ackPollNanos)
            {
                // Poll for the answer instead of sleeping until it wakes this thread: a wake-up of a sleeping thread
                // is the largest part of a replicated write's extra latency. Yield so that a backup or client sharing
                // the core runs first; a non-zero count keeps the progress loop polling.
                Thread.yield();
                work++;
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
        return local.inFlightWrites() + pending.sentCount();
    }

    @Override
    public void close()
    {
        local.close();
        links.close();
    }

    /** Runs a task posted from another thread on the request thread, and wakes it. */
    void post(final Runnable task)
    {
        links.post(task);
    }

    /** Answers and failures of the links, on the request thread. */
    private final class LinkListener implements PeerLink.Listener
    {
        @Override
        public void onAck(final int nodeId, final long correlationId, final Status status,
            final ResponseFlyweight response)
        {
            if ((correlationId & Reconciles.RECONCILE_BIT) != 0)
            {
                reconciles.onAnswer(nodeId, correlationId, status, response);
                return;
            }
            if ((correlationId & CatchUp.COPY_BIT) != 0)
            {
                catchUps.onCopyAck(nodeId, status);
                return;
            }
            lag.acked(nodeId, System.nanoTime());
            catchUps.onTailAck(nodeId, correlationId, status);
            final ReplicatedWrite w = pending.sent(correlationId);
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
                // This node is no longer the range's primary (the replica holds a newer epoch): the client refreshes
                // its map and retries there. The local copy of the write (it may be applied here) is never served:
                // this node left the range, or catches up as a learner before it counts again.
                w.fail(Status.WRONG_NODE,
                    new String(writableNow().ownerAddress(w.firstSlot), StandardCharsets.UTF_8));
            }
            else
            {
                removals.replicaFailed(nodeId, w.firstSlot, w.rangeEpoch, "node " + nodeId + " answered " + status);
                return;
            }
            pending.drainCompleted();
        }

        @Override
        public void onLinkDown(final int nodeId, final String reason)
        {
            lag.forget(nodeId);
            catchUps.onLinkDown(nodeId, reason);
            reconciles.onLinkDown(nodeId, reason);
            final ClusterState state = view.current();
            for (final ReplicatedWrite w : pending.sentWrites())
            {
                if (w.awaits(nodeId))
                {
                    // This write's message may be lost: the node takes no later write of the range while in sync.
                    final SlotRange range = state.ranges().isEmpty() ? null : state.rangeOf(w.firstSlot);
                    if (range != null && range.primary() == localNodeId && range.backups().contains(nodeId))
                    {
                        gapped.add(gapKey(w.firstSlot, nodeId));
                    }
                    removals.replicaFailed(nodeId, w.firstSlot, w.rangeEpoch, reason);
                }
            }
        }
    }
}
