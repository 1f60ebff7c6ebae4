package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.store.RangeStore;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * The primary's catch-ups of the learners of its ranges, one {@link CatchUp} per learner node: begun when the view
 * lists a learner, fed the tail by the write path, advanced (checkpoint read, COPY messages) on the request thread,
 * ended on a failure, promoted through the view once complete.
 *
 * <pre>
 *   review      view lists a learner of a range this node is primary of, no catch-up (or an ended one of an
 *               earlier epoch) -> new CatchUp, DROP sent
 *   advance     every write before it durable locally -> read the checkpoint (its own thread) -> COPY each entry
 *   tail        the write path sends each write of the range to active learners; counting ones are waited for
 *   acks        COPY acks -> all done: counting; tail acks -> maybe promoteLearner
 *   end         a failure or refusal: writes waiting for the learner stop waiting (it is no in-sync backup)
 * </pre>
 * Request thread only (the checkpoint reader hands its entries back through {@link ReplicaLinks#post}).
 */
final class LearnerCatchUps
{
    private static final Logger LOG = LoggerFactory.getLogger(LearnerCatchUps.class);
    private static final UnsafeBuffer EMPTY = new UnsafeBuffer(new byte[0]);

    private final ClusterView view;
    private final int localNodeId;
    private final RangeStore ranges;
    private final ReplicaLinks links;
    private final PendingWrites pending;
    private final ReplicaLag lag;
    /** Catch-ups of learners of ranges this node is primary of, by learner node id. */
    private final Int2ObjectHashMap<CatchUp> catchUps = new Int2ObjectHashMap<>();
    private long nextCopyId = 1;
    /** Set when a catch-up ends or finishes (see {@link #wantsReview}). */
    private boolean reviewAgain;

    LearnerCatchUps(final ClusterView view, final RangeStore ranges, final ReplicaLinks links,
        final PendingWrites pending, final ReplicaLag lag)
    {
        this.view = view;
        this.localNodeId = view.localNodeId();
        this.ranges = ranges;
        this.links = links;
        this.pending = pending;
        this.lag = lag;
    }

    boolean isEmpty()
    {
        return catchUps.isEmpty();
    }

    /** Learners of {@code range} whose catch-up is under way (they get the tail). */
    List<Integer> active(final SlotRange range)
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

    /** Whether writes wait for this active learner (its catch-up is counting). */
    boolean counts(final int learner)
    {
        return catchUps.get(learner).counts();
    }

    /**
     * The write {@code sequence}, encoded in the send buffer, goes to this active learner as tail ({@code entries}
     * keys of {@code keyBytes} in all: counted until answered).
     */
    void sendTail(final int learner, final long sequence, final int length, final int entries, final int keyBytes)
    {
        final CatchUp catchUp = catchUps.get(learner);
        catchUp.lastTailSent = sequence;
        if (!links.send(learner, length))
        {
            end(catchUp, "send to learner " + learner + " refused");
        }
        else
        {
            lag.sent(learner, entries, keyBytes);
        }
    }

    /**
     * Begin a catch-up for each learner of a range this node is primary of that has none under way (one per learner
     * at a time). One that ended is begun again at once for another range or epoch, else {@code retryNanos} after it
     * ended (a learner is never left behind for want of a configuration change).
     *
     * @param nextSequence the sequence the next write gets: the first the learners receive as tail.
     * @return whether to review again later (a learner waits for its retry, or for its catch-up on another range).
     */
    boolean review(final long nextSequence, final long retryNanos)
    {
        reviewAgain = false;
        boolean again = false;
        final long now = System.nanoTime();
        for (final SlotRange range : view.current().ranges())
        {
            if (range.primary() != localNodeId || range.state() == SlotRange.State.FENCED)
            {
                // FENCED: a hand-over under way. Its learner may be the old primary, which serves the range until it
                // released it: a DROP now would empty what it still serves. The catch-up begins once LIVE.
                continue;
            }
            for (final int learner : range.learners())
            {
                final CatchUp existing = catchUps.get(learner);
                if (existing == null || !existing.isActive() && (existing.firstSlot != range.firstSlot() ||
                    existing.beganAtEpoch != range.epoch() || now - existing.endedNanos() >= retryNanos))
                {
                    begin(range, learner, nextSequence);
                }
                else if (!existing.isActive() || existing.firstSlot != range.firstSlot())
                {
                    again = true;
                }
            }
        }
        return again;
    }

    /** Whether a catch-up ended or finished since the last {@link #review}: the learners want looking at again. */
    boolean wantsReview()
    {
        return reviewAgain;
    }

    private void begin(final SlotRange range, final int learner, final long nextSequence)
    {
        final CatchUp c = new CatchUp(learner, range.firstSlot(), range.lastSlot(), nextSequence, range.epoch());
        catchUps.put(learner, c);
        LOG.info("catch-up of node {} on slots {}..{} begins (epoch {})", learner, range.firstSlot(),
            range.lastSlot(), range.epoch());
        final int length = links.message(CatchUp.COPY_BIT)
            .write(localNodeId, range.firstSlot(), range.lastSlot(), range.epoch(), ReplicateRequestFlyweight.OP_DROP,
                EMPTY, 0, 0, EMPTY, 0, 0)
            .encodedLength();
        c.dropSent();
        if (!links.send(learner, length))
        {
            end(c, "send to learner " + learner + " refused");
        }
    }

    /** Catch-ups waiting for the writes before them to be durable locally start reading their checkpoint. */
    int advance()
    {
        int work = 0;
        final ReplicatedWrite oldestLocal = pending.oldestLocal();
        for (final CatchUp c : catchUps.values())
        {
            if (c.phase() == CatchUp.Phase.LOCAL && (oldestLocal == null || oldestLocal.sequence >= c.startSequence))
            {
                c.startCopy(ranges, (key, value) -> links.post(() -> sendCopy(c, key, value)),
                    failure -> links.post(() -> copyRead(c, failure)));
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
        final int length = links.message(CatchUp.COPY_BIT | nextCopyId++)
            .write(localNodeId, c.firstSlot, c.lastSlot, range.epoch(), ReplicateRequestFlyweight.OP_COPY,
                new UnsafeBuffer(key), 0, key.length, new UnsafeBuffer(value), 0, value.length)
            .encodedLength();
        c.copySent();
        if (!links.send(c.learner, length))
        {
            end(c, "send to learner " + c.learner + " refused");
        }
    }

    private void copyRead(final CatchUp c, final Throwable failure)
    {
        if (failure != null)
        {
            end(c, "reading the checkpoint failed: " + failure.getMessage());
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
        view.promoteLearner(c.firstSlot, epoch, c.learner).whenComplete((state, failure) -> links.post(() ->
        {
            if (failure == null && state.rangeOf(c.firstSlot).backups().contains(c.learner))
            {
                LOG.info("node {} caught up on slots {}..{} ({} entries copied) and is an in-sync backup", c.learner,
                    c.firstSlot, c.lastSlot, c.copiesAcked());
                c.done();
                reviewAgain = true; // the learner may wait to catch up on another range
            }
            else
            {
                end(c, "promotion refused: " + (failure == null ? "not listed" : failure.getMessage()));
            }
        }));
    }

    /** An answer to a DROP or COPY message from {@code nodeId}. */
    void onCopyAck(final int nodeId, final Status status)
    {
        final CatchUp catchUp = catchUps.get(nodeId);
        if (catchUp != null && catchUp.isActive())
        {
            if (!catchUp.copyAcked(status))
            {
                end(catchUp, "learner " + nodeId + " refused a copy: " + status);
            }
            else if (catchUp.copyComplete())
            {
                copyRead(catchUp, null);
            }
        }
    }

    /** An answer to write {@code sequence} from {@code nodeId}: counts when it is a learner catching up. */
    void onTailAck(final int nodeId, final long sequence, final Status status)
    {
        final CatchUp catchUp = catchUps.get(nodeId);
        if (catchUp != null && catchUp.isActive())
        {
            if (status == Status.OK || status == Status.NOT_FOUND)
            {
                catchUp.tailAcked(sequence);
                maybePromote(catchUp);
            }
            else
            {
                end(catchUp, "learner " + nodeId + " refused a write: " + status);
            }
        }
    }

    /** The link to {@code nodeId} failed: its catch-up, if any, ends. */
    void onLinkDown(final int nodeId, final String reason)
    {
        final CatchUp catchUp = catchUps.get(nodeId);
        if (catchUp != null)
        {
            end(catchUp, reason);
        }
    }

    /** End the catch-up of {@code nodeId} on range {@code firstSlot} if one is active; returns whether one was. */
    boolean endIfCatchingUp(final int nodeId, final int firstSlot, final String reason)
    {
        final CatchUp catchUp = catchUps.get(nodeId);
        if (catchUp != null && catchUp.isActive() && catchUp.firstSlot == firstSlot)
        {
            end(catchUp, reason); // a learner, not in sync: nothing to ask the coordinator
            return true;
        }
        return false;
    }

    /** End a catch-up; writes that waited for the learner (counting) stop waiting: it is no in-sync backup. */
    private void end(final CatchUp c, final String reason)
    {
        if (!c.isActive())
        {
            return;
        }
        c.end(reason);
        reviewAgain = true; // begun again if it is still a learner (see review)
        if (view.current().rangeOf(c.firstSlot).backups().contains(c.learner))
        {
            return;
        }
        for (final ReplicatedWrite w : pending.sentWrites())
        {
            if (w.firstSlot == c.firstSlot && w.release(c.learner))
            {
                pending.drainCompleted();
            }
        }
    }
}
