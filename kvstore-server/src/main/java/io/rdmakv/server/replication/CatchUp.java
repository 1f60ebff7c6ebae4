package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.store.RangeStore;
import io.rdmakv.server.store.RocksStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The primary's side of a learner's catch-up on one slot range: the range's checkpoint streamed while the tail keeps
 * flowing, then the learner promoted. Driven by {@link LearnerCatchUps} on the request thread; the checkpoint is
 * read on a thread of its own and each entry handed to the request thread to send.
 *
 * <pre>
 *   RESUMING : (a learner that was an in-sync backup of the range here) RESUME sent, no tail yet; its answer says from
 *              which sequence it holds the range: the keys this node wrote past it, if its own window still holds
 *              them all, are the checkpoint (a delta: {@link #resumeDelta}); otherwise BEGIN as below
 *   BEGIN    : DROP sent (the learner forgets what it held of the range and starts remembering tail keys); from now
 *              every write of the range goes to the learner too (the tail), not waited for
 *   LOCAL    : wait until every write accepted before BEGIN is durable here (so the checkpoint holds it)
 *   COPYING  : a RocksDB snapshot of the range, entry by entry as COPY messages (at most WINDOW unacknowledged); the
 *              learner skips a COPY of a key the tail already wrote, so the newer value always wins
 *   COUNTING : all COPYs acknowledged; from now writes wait for the learner too (a failure just ends the catch-up),
 *              and once the learner acknowledged the last write sent before this point, it has every write
 *              acknowledged so far and every later one: promoteLearner
 *   PROMOTING: committed -> done (the view lists it as an in-sync backup); refused -> ended
 * </pre>
 */
final class CatchUp
{
    /** COPY messages in flight at most. */
    static final int WINDOW = 1024;
    /** Correlation ids of DROP and COPY messages carry this bit (write sequences never reach it). */
    static final long COPY_BIT = 1L << 62;

    /** The value of a COPY that says the key is absent. */
    static final byte[] NO_VALUE = new byte[0];

    private static final Logger LOG = LoggerFactory.getLogger(CatchUp.class);

    enum Phase
    {
        RESUMING, LOCAL, COPYING, COUNTING, PROMOTING, DONE, ENDED
    }

    final int learner;
    final int firstSlot;
    final int lastSlot;
    /** The first write sequence the learner receives as tail. */
    long startSequence;
    /** The range epoch when it began: an ended catch-up is begun again only at another epoch. */
    final long beganAtEpoch;
    /** The last write sequence sent to the learner as tail. */
    long lastTailSent;
    private final Semaphore window = new Semaphore(WINDOW);
    private Phase phase = Phase.LOCAL;
    /** A resumed catch-up: the keys written past the learner's point (its checkpoint), else null (the whole range). */
    private List<byte[]> deltaKeys;
    /** RESUMING: where the learner's range was known complete here ({@link ResumePoints.Point}). */
    ResumePoints.Point resumeFrom;
    private volatile boolean stop;
    private long copiesSent;
    private long copiesAcked;
    private boolean copyFinished;
    /** COUNTING: the last write sequence sent to the learner before counting began. */
    private long barrier;
    private long lastTailAck;
    /** When it ended (DONE or ENDED), on the request thread's clock. */
    private long endedNanos;

    CatchUp(final int learner, final int firstSlot, final int lastSlot, final long startSequence,
        final long beganAtEpoch)
    {
        this.learner = learner;
        this.firstSlot = firstSlot;
        this.lastSlot = lastSlot;
        this.startSequence = startSequence;
        this.beganAtEpoch = beganAtEpoch;
        this.lastTailSent = startSequence - 1;
        this.lastTailAck = startSequence - 1;
    }

    /** A catch-up that asks the learner where it may resume ({@link Phase#RESUMING}) before it begins. */
    static CatchUp resuming(final int learner, final int firstSlot, final int lastSlot, final long beganAtEpoch,
        final ResumePoints.Point from)
    {
        final CatchUp c = new CatchUp(learner, firstSlot, lastSlot, 0, beganAtEpoch);
        c.phase = Phase.RESUMING;
        c.resumeFrom = from;
        return c;
    }

    /** Whether the tail goes to the learner (begun and not over). */
    boolean isActive()
    {
        return phase != Phase.DONE && phase != Phase.ENDED && phase != Phase.RESUMING;
    }

    /** Whether it is over (DONE or ENDED). */
    boolean isOver()
    {
        return phase == Phase.DONE || phase == Phase.ENDED;
    }

    /**
     * RESUMING -> LOCAL: the tail begins at {@code nextSequence}, and the checkpoint is {@code keys} only (each sent
     * with its value once every earlier write is durable here, or as absent), or the whole range when null (a DROP is
     * sent first, as for a new learner).
     */
    void begin(final long nextSequence, final List<byte[]> keys)
    {
        startSequence = nextSequence;
        lastTailSent = nextSequence - 1;
        lastTailAck = nextSequence - 1;
        deltaKeys = keys;
        phase = Phase.LOCAL;
    }

    /** Whether it streams only the keys written past the learner's point (a resumed catch-up). */
    boolean isDelta()
    {
        return deltaKeys != null;
    }

    /** Request thread: the DROP that begins it was sent (acknowledged like a COPY). */
    void dropSent()
    {
        window.tryAcquire();
        copiesSent++;
    }

    Phase phase()
    {
        return phase;
    }

    /** Writes wait for the learner's acknowledgement (COUNTING and after). */
    boolean counts()
    {
        return phase == Phase.COUNTING || phase == Phase.PROMOTING;
    }

    /**
     * LOCAL -> COPYING once every earlier write is durable locally: starts the checkpoint reader.
     *
     * @param send called on the reader thread for each entry; it must hand the entry to the request thread.
     * @param finished called on the reader thread when the scan ended (with the failure, or null).
     */
    void startCopy(final RangeStore ranges, final CopySink send, final java.util.function.Consumer<Throwable> finished)
    {
        phase = Phase.COPYING;
        final List<byte[]> keys = deltaKeys;
        final Thread reader = new Thread(() ->
        {
            try
            {
                final RocksStore.KeyValueVisitor copy = (key, value) ->
                {
                    try
                    {
                        while (!window.tryAcquire(100, TimeUnit.MILLISECONDS))
                        {
                            if (stop)
                            {
                                return false;
                            }
                        }
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                    send.copy(key, value);
                    return !stop;
                };
                if (keys == null)
                {
                    ranges.scan(firstSlot, lastSlot, copy);
                }
                else
                {
                    // Each key's value now: every write before the tail began is in the store, a later one reached
                    // the learner as tail before its value could be read here (tail wins). Absent: an empty value.
                    for (final byte[] key : keys)
                    {
                        final byte[] value = ranges.get(key);
                        if (!copy.visit(key, value == null ? NO_VALUE : value))
                        {
                            break;
                        }
                    }
                }
                finished.accept(null);
            }
            catch (final RuntimeException ex)
            {
                finished.accept(ex);
            }
        }, "rdmakv-catch-up-" + learner);
        reader.setDaemon(true);
        reader.start();
    }

    /** Request thread: a COPY was sent. */
    void copySent()
    {
        copiesSent++;
    }

    /** Request thread: the reader finished. Returns true when counting may begin now. */
    boolean copyFinished()
    {
        copyFinished = true;
        return phase == Phase.COPYING && copiesAcked == copiesSent;
    }

    /**
     * Request thread: a COPY (or the DROP) was acknowledged; false when the learner refused it. NOT_FOUND: a COPY of
     * an absent key found nothing to delete.
     */
    boolean copyAcked(final Status status)
    {
        if (status != Status.OK && status != Status.NOT_FOUND)
        {
            return false;
        }
        copiesAcked++;
        window.release();
        return true;
    }

    /** Request thread: whether every COPY is sent and acknowledged. */
    boolean copyComplete()
    {
        return phase == Phase.COPYING && copyFinished && copiesAcked == copiesSent;
    }

    /** COPYING -> COUNTING; {@code lastSent} is the last write sequence sent to the learner so far. */
    void startCounting(final long lastSent)
    {
        phase = Phase.COUNTING;
        barrier = lastSent;
        LOG.info("catch-up of node {} on slots {}..{}: {} entries copied{}; waiting for the tail up to write {}",
            learner, firstSlot, lastSlot, copiesAcked, deltaKeys == null ? "" : " (resumed: the keys written since " +
            "it stopped)", barrier);
    }

    /** Request thread: the learner acknowledged tail write {@code sequence}. */
    void tailAcked(final long sequence)
    {
        lastTailAck = Math.max(lastTailAck, sequence);
    }

    /** COUNTING and the learner has every write sent before counting began. */
    boolean readyToPromote()
    {
        return phase == Phase.COUNTING && lastTailAck >= barrier;
    }

    void promoting()
    {
        phase = Phase.PROMOTING;
    }

    void done()
    {
        phase = Phase.DONE;
        endedNanos = System.nanoTime();
    }

    /** When it ended (meaningful once not {@link #isActive}). */
    long endedNanos()
    {
        return endedNanos;
    }

    void end(final String reason)
    {
        if (phase != Phase.DONE)
        {
            LOG.warn("catch-up of node {} on slots {}..{} ended: {}", learner, firstSlot, lastSlot, reason);
        }
        phase = Phase.ENDED;
        endedNanos = System.nanoTime();
        stop = true;
    }

    long copiesAcked()
    {
        return copiesAcked;
    }

    /** Hands one checkpoint entry to the request thread (called on the reader thread). */
    @FunctionalInterface
    interface CopySink
    {
        void copy(byte[] key, byte[] value);
    }
}
