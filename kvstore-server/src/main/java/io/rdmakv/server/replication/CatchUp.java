package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.store.RangeStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The primary's side of a learner's catch-up on one slot range: the range's checkpoint streamed while the tail keeps
 * flowing, then the learner promoted. Driven by {@link LearnerCatchUps} on the request thread; the checkpoint is
 * read on a thread of its own and each entry handed to the request thread to send.
 *
 * <pre>
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

    private static final Logger LOG = LoggerFactory.getLogger(CatchUp.class);

    enum Phase
    {
        LOCAL, COPYING, COUNTING, PROMOTING, DONE, ENDED
    }

    final int learner;
    final int firstSlot;
    final int lastSlot;
    /** The first write sequence the learner receives as tail. */
    final long startSequence;
    /** The range epoch when it began: an ended catch-up is begun again only at another epoch. */
    final long beganAtEpoch;
    /** The last write sequence sent to the learner as tail. */
    long lastTailSent;
    private final Semaphore window = new Semaphore(WINDOW);
    private Phase phase = Phase.LOCAL;
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

    /** Whether the tail goes to the learner (begun and not over). */
    boolean isActive()
    {
        return phase != Phase.DONE && phase != Phase.ENDED;
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
        final Thread reader = new Thread(() ->
        {
            try
            {
                ranges.scan(firstSlot, lastSlot, (key, value) ->
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
                });
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

    /** Request thread: a COPY (or the DROP) was acknowledged; false when the learner refused it. */
    boolean copyAcked(final Status status)
    {
        if (status != Status.OK)
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
        LOG.info("catch-up of node {} on slots {}..{}: {} entries copied; waiting for the tail up to write {}",
            learner, firstSlot, lastSlot, copiesAcked, barrier);
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
