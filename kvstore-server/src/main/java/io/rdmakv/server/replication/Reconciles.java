package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.cluster.TakeOvers;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.store.RangeStore;
import io.rdmakv.server.store.StoreException;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * A new primary's reconcile of the backups that stay in sync with it: when the view makes this node primary of a range
 * it was a backup of, the writes the previous primary had in flight may have reached this node and not a backup, or
 * the reverse. Until every remaining backup is reconciled, the range is held ({@link TakeOvers}, which decides which
 * ranges were taken over: reads and writes answered WRONG_NODE naming this node, so clients retry; ownership words
 * FENCED); this class releases the hold when the reconcile ends, however it ends.
 *
 * <pre>
 *   observe   a range TakeOvers holds (this node was a backup of it, primary P, and is primary of it now)
 *             -> a reconcile per backup B
 *   query     once the replica side's writes are durable here: RECONCILE(range, epoch, P, P's incarnation here,
 *             s_T = last sequence applied here from P) -> B
 *   answer    B: s_B and its keys from P in the range past s_T (or not covered)
 *   fix-ups   for those keys and this node's own keys from P in the range past s_B: the current value here
 *             (PUT) or its absence (DELETE) -> B, in order on the link, flagged FIX_UP; B forgets the write ids of its
 *             writes of the key past s_T (undone: a retry applies them again), and each fix-up carries one write
 *             id of this node's writes of the key past s_B and the answer recorded here for it (B answers their
 *             retries as applied, with that answer); all acknowledged
 *             -> B reconciled
 *   not covered / refused / link down / timeout -> B is asked out of the in-sync set (it catches up as a learner);
 *             reconciled once the view no longer lists it (asked again after a timeout if still listed)
 *   every backup of the range reconciled -> the hold is released: reads and writes of the range go on
 *   the range no longer this node's (a newer epoch) -> the hold is released (it is routed elsewhere)
 * </pre>
 * Request thread only.
 */
final class Reconciles
{
    /** Correlation ids of RECONCILE queries and their fix-ups carry this bit. */
    static final long RECONCILE_BIT = 1L << 61;
    private static final Logger LOG = LoggerFactory.getLogger(Reconciles.class);

    private enum Step
    {
        WAITING, QUERIED, FIXING, DONE, FAILED
    }

    /** The reconcile of one backup of one range. */
    private static final class Backup
    {
        final int node;
        Step step = Step.WAITING;
        long sinceNanos;
        int outstanding;

        Backup(final int node)
        {
            this.node = node;
        }
    }

    /** The reconcile of one range this node took over. */
    private static final class Range
    {
        final int firstSlot;
        final int lastSlot;
        final int previousPrimary;
        final TakeOvers.Hold hold;
        final long beganNanos;
        /** The replica writes accepted here when it began: the previous primary's last ones are among them. */
        final long replicaWritesMark;
        long epoch;
        final Int2ObjectHashMap<Backup> backups = new Int2ObjectHashMap<>();

        Range(final SlotRange range, final TakeOvers.Hold hold, final long beganNanos, final long replicaWritesMark)
        {
            this.replicaWritesMark = replicaWritesMark;
            this.firstSlot = range.firstSlot();
            this.lastSlot = range.lastSlot();
            this.epoch = range.epoch();
            this.previousPrimary = hold.previousPrimary();
            this.hold = hold;
            this.beganNanos = beganNanos;
        }
    }

    private final ClusterView view;
    private final int localNodeId;
    private final RangeStore ranges;
    private final ReplicaLinks links;
    private final ReplicaHistory history;
    private final long incarnation;
    private final LongSupplier nextSequence;
    private final ServerCounters counters;
    /** This node's write-id records: a fix-up carries the answer recorded for its write id. */
    private final WriteIds writeIds;
    private final InSyncRemovals removals;
    /** Which ranges were taken over (held until their reconcile ends: this class releases them). */
    private final TakeOvers takeOvers;
    private final ReconcileHold testHold = ReconcileHold.configured();
    private final Int2ObjectHashMap<Range> byFirstSlot = new Int2ObjectHashMap<>();
    /** Queries and fix-ups not answered yet, by correlation id. */
    private final Long2ObjectHashMap<Range> rangeOf = new Long2ObjectHashMap<>();
    private long nextId = 1;

    /**
     * @param incarnation  this node's incarnation (the fix-ups carry it with a sequence, like client writes).
     * @param nextSequence takes this node's next replication sequence.
     * @param context      the store's ranges, and the counters of backups reconciled and fix-ups sent.
     * @param removals     asks a backup that cannot be reconciled out of the in-sync set.
     * @param writeIds     this node's write-id records (the answers its fix-ups carry).
     * @param takeOvers    the ranges taken over: reconciled here, released when their reconcile ends.
     */
    Reconciles(final ClusterView view, final ReplicationContext context, final ReplicaLinks links,
        final InSyncRemovals removals, final ReplicaHistory history, final long incarnation,
        final LongSupplier nextSequence, final WriteIds writeIds, final TakeOvers takeOvers)
    {
        this.takeOvers = takeOvers;
        this.writeIds = writeIds;
        this.counters = context.counters();
        this.view = view;
        this.localNodeId = view.localNodeId();
        this.ranges = context.ranges();
        this.links = links;
        this.removals = removals;
        this.history = history;
        this.incarnation = incarnation;
        this.nextSequence = nextSequence;
    }

    /**
     * A new state of the view (already observed by {@link TakeOvers}): begin reconciles of the ranges it holds, settle
     * backups the view no longer lists, end the reconciles of ranges no longer this node's.
     */
    void observe(final ClusterState now)
    {
        if (!byFirstSlot.isEmpty())
        {
            for (final Range r : new ArrayList<>(byFirstSlot.values()))
            {
                final SlotRange current = now.ranges().isEmpty() ? null : now.rangeOf(r.firstSlot);
                if (current == null || current.primary() != localNodeId || current.firstSlot() != r.firstSlot ||
                    current.lastSlot() != r.lastSlot)
                {
                    end(r); // no longer this node's to reconcile: routing refuses its writes
                    continue;
                }
                r.epoch = current.epoch();
                for (final Backup b : r.backups.values())
                {
                    if (!current.backups().contains(b.node))
                    {
                        b.step = Step.DONE; // out of the in-sync set: not waited for
                    }
                }
                finishIfDone(r);
            }
        }
        for (final TakeOvers.Hold hold : takeOvers.held())
        {
            final Range under = byFirstSlot.get(hold.firstSlot());
            if (under != null && under.hold == hold)
            {
                continue;
            }
            final SlotRange range = now.ranges().isEmpty() ? null : now.rangeOf(hold.firstSlot());
            if (range == null || range.primary() != localNodeId || range.firstSlot() != hold.firstSlot() ||
                range.lastSlot() != hold.lastSlot())
            {
                continue; // held from a newer state than now: begun once the request thread sees it
            }
            if (under != null)
            {
                end(under); // an earlier take-over of the range, replaced
            }
            final Range r = new Range(range, hold, System.nanoTime(), history.replicaWrites().acceptedMark());
            for (final int backup : range.backups())
            {
                r.backups.put(backup, new Backup(backup));
            }
            byFirstSlot.put(r.firstSlot, r);
            LOG.info("reconcile of slots {}..{} (epoch {}) with backups {} begins: this node took over from node {}",
                r.firstSlot, r.lastSlot, r.epoch, range.backups(), r.previousPrimary);
            testHold.began(localNodeId, r.firstSlot, r.lastSlot, r.epoch);
            finishIfDone(r); // no backup left to reconcile
        }
    }

    /** Send the queries that wait, and time out the ones not answered; returns the work done. */
    int advance(final long nowNanos, final long timeoutNanos)
    {
        if (byFirstSlot.isEmpty())
        {
            return 0;
        }
        int work = 0;
        boolean flushed = false;
        for (final Range r : new ArrayList<>(byFirstSlot.values()))
        {
            for (final Backup b : r.backups.values())
            {
                if (b.step == Step.WAITING)
                {
                    if (testHold.holds(localNodeId, r.beganNanos, nowNanos))
                    {
                        break; // a test holds this reconcile (ReconcileHold)
                    }
                    if (!flushed)
                    {
                        history.replicaWrites().flush();
                        flushed = true;
                    }
                    if (!history.replicaWrites().reportedThrough(r.replicaWritesMark))
                    {
                        // The previous primary's last writes are not durable here yet. Only those, accepted before
                        // the take-over: under FSYNC other primaries' writes keep coming, and waiting for none to be
                        // in flight could wait for ever.
                        return work;
                    }
                    query(r, b, nowNanos);
                    work++;
                }
                else if ((b.step == Step.QUERIED || b.step == Step.FIXING) && nowNanos - b.sinceNanos > timeoutNanos)
                {
                    fail(r, b, "node " + b.node + " did not answer the reconcile within " + timeoutNanos / 1_000_000 +
                        " ms", nowNanos);
                    work++;
                }
                else if (b.step == Step.FAILED && nowNanos - b.sinceNanos > timeoutNanos)
                {
                    b.step = Step.WAITING; // its removal was refused or is slow: ask it again
                    work++;
                }
            }
        }
        return work;
    }

    private void query(final Range r, final Backup b, final long nowNanos)
    {
        final SenderWindow window = history.window(r.previousPrimary);
        final long id = RECONCILE_BIT | nextId++;
        final int length = links.message(id).writeReconcile(localNodeId, r.firstSlot, r.lastSlot, r.epoch,
            r.previousPrimary, window == null ? 0 : window.incarnation(), window == null ? 0 : window.lastSequence())
            .encodedLength();
        b.step = Step.QUERIED;
        b.sinceNanos = nowNanos;
        b.outstanding = 1;
        rangeOf.put(id, r);
        if (!links.send(b.node, length))
        {
            fail(r, b, "RECONCILE to node " + b.node + " not sent", nowNanos);
        }
    }

    /** An answer from {@code nodeId} to a query or fix-up sent under {@code correlationId}. */
    void onAnswer(final int nodeId, final long correlationId, final Status status, final ResponseFlyweight response)
    {
        final Range r = rangeOf.remove(correlationId);
        final Backup b = r == null ? null : r.backups.get(nodeId);
        if (b == null || b.step != Step.QUERIED && b.step != Step.FIXING)
        {
            return; // a reconcile that ended
        }
        final long now = System.nanoTime();
        if (status != Status.OK && status != Status.NOT_FOUND)
        {
            fail(r, b, "node " + nodeId + " answered the reconcile " + status, now);
            return;
        }
        if (b.step == Step.FIXING)
        {
            if (--b.outstanding == 0)
            {
                settled(r, b, "fix-ups acknowledged");
            }
            return;
        }
        final ReconcileAnswer answer;
        try
        {
            answer = ReconcileAnswer.decode(response.buffer(), response.valueIndex(), response.valueLength());
        }
        catch (final IllegalArgumentException ex)
        {
            fail(r, b, "malformed reconcile answer from node " + nodeId + ": " + ex.getMessage(), now);
            return;
        }
        final SenderWindow own = history.window(r.previousPrimary);
        if (!answer.covered || own != null && own.incarnation() != 0 && !own.covers(answer.lastSequence))
        {
            fail(r, b, "the windows of node " + nodeId + " and this node do not cover the writes of node " +
                r.previousPrimary + " in flight (" + (answer.covered ? "this node's window is too short" :
                "its window is too short or holds another run of that node") + ")", now);
            return;
        }
        // Per key: the client write ids of this node's writes of it the backup lacks (its fix-ups carry them).
        final Map<ByteBuffer, List<long[]>> keys = new HashMap<>();
        for (final ByteBuffer key : answer.keys)
        {
            keys.putIfAbsent(key, new ArrayList<>(0));
        }
        if (own != null && own.incarnation() != 0)
        {
            own.forEachAfter(answer.lastSequence, r.firstSlot, r.lastSlot, (buffer, index, length, writer, seq) ->
            {
                final byte[] key = new byte[length];
                buffer.getBytes(index, key);
                final List<long[]> ids = keys.computeIfAbsent(ByteBuffer.wrap(key), k -> new ArrayList<>(1));
                if (writer != 0)
                {
                    ids.add(new long[] {writer, seq});
                }
            });
        }
        b.step = Step.FIXING;
        b.sinceNanos = now;
        b.outstanding = 0;
        for (final Map.Entry<ByteBuffer, List<long[]>> key : keys.entrySet())
        {
            if (!fixUp(r, b, key.getKey().array(), key.getValue()))
            {
                return;
            }
        }
        if (b.outstanding == 0)
        {
            settled(r, b, "nothing differed");
        }
        else
        {
            LOG.info("reconcile of slots {}..{}: {} keys sent to node {} (its last write from node {}: {})",
                r.firstSlot, r.lastSlot, b.outstanding, nodeId, r.previousPrimary, answer.lastSequence);
        }
    }

    /**
     * Send the current value of {@code key} here (or its absence) to the backup, once per client write id of {@code
     * writeIds} (the writes of it the backup lacks, so that it answers their retries as applied; once without one when
     * there are none); false when the reconcile failed.
     */
    private boolean fixUp(final Range r, final Backup b, final byte[] key, final List<long[]> writeIds)
    {
        final byte[] value;
        try
        {
            value = ranges.get(key);
        }
        catch (final StoreException ex)
        {
            fail(r, b, "reading key for the reconcile failed: " + ex.getMessage(), System.nanoTime());
            return false;
        }
        final UnsafeBuffer k = new UnsafeBuffer(key);
        final UnsafeBuffer v = value == null ? k : new UnsafeBuffer(value);
        for (int i = 0; i < Math.max(1, writeIds.size()); i++)
        {
            final long id = RECONCILE_BIT | nextId++;
            final ReplicateRequestFlyweight message = links.message(id);
            message.write(localNodeId, r.firstSlot, r.lastSlot, r.epoch, value == null ?
                ReplicateRequestFlyweight.OP_DELETE : ReplicateRequestFlyweight.OP_PUT, k, 0, key.length, v, 0,
                value == null ? 0 : value.length);
            if (!writeIds.isEmpty())
            {
                message.appendWriteId(writeIds.get(i)[0], writeIds.get(i)[1], 0);
            }
            message.appendSequence(incarnation, nextSequence.getAsLong()).markFixUp();
            if (!writeIds.isEmpty())
            {
                // B records this node's answer of the write, not its own outcome of the fix-up (a DELETE answered
                // OK here may find nothing left to delete there once a later write of the key was fixed up first).
                message.recordedAnswer(this.writeIds.answered(writeIds.get(i)[0], writeIds.get(i)[1]));
            }
            counters.increment(ServerCounter.RECONCILE_FIX_UPS);
            b.outstanding++;
            rangeOf.put(id, r);
            if (!links.send(b.node, message.encodedLength()))
            {
                fail(r, b, "reconcile PUT to node " + b.node + " not sent", System.nanoTime());
                return false;
            }
        }
        return true;
    }

    /** The link to {@code nodeId} failed: its reconciles under way fail. */
    void onLinkDown(final int nodeId, final String reason)
    {
        for (final Range r : new ArrayList<>(byFirstSlot.values()))
        {
            final Backup b = r.backups.get(nodeId);
            if (b != null && (b.step == Step.QUERIED || b.step == Step.FIXING))
            {
                fail(r, b, reason, System.nanoTime());
            }
        }
    }

    private void fail(final Range r, final Backup b, final String reason, final long nowNanos)
    {
        b.step = Step.FAILED;
        b.sinceNanos = nowNanos;
        b.outstanding = 0;
        LOG.warn("reconcile of slots {}..{} with node {} failed: {}", r.firstSlot, r.lastSlot, b.node, reason);
        removals.replicaFailed(b.node, r.firstSlot, r.epoch, reason);
    }

    private void settled(final Range r, final Backup b, final String how)
    {
        b.step = Step.DONE;
        counters.increment(ServerCounter.RECONCILES);
        LOG.info("node {} is reconciled on slots {}..{} ({})", b.node, r.firstSlot, r.lastSlot, how);
        finishIfDone(r);
    }

    private void finishIfDone(final Range r)
    {
        for (final Backup b : r.backups.values())
        {
            if (b.step != Step.DONE)
            {
                return;
            }
        }
        if (byFirstSlot.get(r.firstSlot) == r)
        {
            end(r);
            LOG.info("slots {}..{} reconciled: reads and writes go on (epoch {})", r.firstSlot, r.lastSlot, r.epoch);
        }
    }

    /**
     * Forget a range's reconcile, and the ids of its answers still awaited (late answers are then ignored), and release
     * its hold: every way a reconcile ends comes here, so no hold outlives its reconcile.
     */
    private void end(final Range r)
    {
        if (byFirstSlot.get(r.firstSlot) == r)
        {
            byFirstSlot.remove(r.firstSlot);
        }
        rangeOf.values().removeIf(pending -> pending == r);
        takeOvers.release(r.hold);
    }

    /** Ranges under reconcile (tests, status). */
    List<Integer> reconciling()
    {
        return new ArrayList<>(byFirstSlot.keySet());
    }
}
