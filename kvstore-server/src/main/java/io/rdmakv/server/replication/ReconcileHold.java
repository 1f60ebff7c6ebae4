package io.rdmakv.server.replication;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

/**
 * A test-only pause of a new primary's reconcile before its queries go out, so that a test can act (kill -9 the new
 * primary, look at what it serves) while a range it took over is held instead of hoping to hit that round trip. With
 * the system property {@value #PROPERTY} set to a number of milliseconds, a reconcile logs {@value #MARKER} and sends
 * its queries that much later; in-process tests hold the reconciles of chosen nodes until they let go
 * ({@link #holdInProcess}). The request thread is never blocked: the range stays held (reads and writes answered
 * WRONG_NODE naming this node, ownership words FENCED) while everything else is served. Off unless set.
 */
final class ReconcileHold
{
    /** System property: how long to hold each reconcile, in milliseconds (0 or unset: never). */
    static final String PROPERTY = "rdmakv.test.holdReconcileMs";
    /** Logged when a hold begins; fault tests wait for it in the node's log. */
    static final String MARKER = "RECONCILE HELD";
    private static final Logger LOG = LoggerFactory.getLogger(ReconcileHold.class);
    private static final IntPredicate NOBODY = node -> false;
    /** The nodes whose reconciles in-process tests hold (tests set and reset it). */
    private static volatile IntPredicate heldInProcess = NOBODY;

    private final long holdNanos;

    ReconcileHold(final long holdMillis)
    {
        this.holdNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, holdMillis));
    }

    /** The hold {@value #PROPERTY} configures. */
    static ReconcileHold configured()
    {
        final String value = System.getProperty(PROPERTY);
        if (value == null)
        {
            return new ReconcileHold(0);
        }
        try
        {
            return new ReconcileHold(Long.parseLong(value.trim()));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(PROPERTY + " must be a number of milliseconds: '" + value + "'", ex);
        }
    }

    /** In-process tests: hold the reconciles of the nodes {@code nodes} accepts until it is replaced. */
    static void holdInProcess(final IntPredicate nodes)
    {
        heldInProcess = nodes == null ? NOBODY : nodes;
    }

    /** Logs the marker when a reconcile of node {@code nodeId} begins under a hold. */
    void began(final int nodeId, final int firstSlot, final int lastSlot, final long epoch)
    {
        if (holdNanos > 0 || heldInProcess.test(nodeId))
        {
            LOG.warn("{} on node {} (slots {}-{}, epoch {}): for {} ms ({})", MARKER, nodeId, firstSlot, lastSlot,
                epoch, TimeUnit.NANOSECONDS.toMillis(holdNanos), holdNanos > 0 ? PROPERTY : "in-process test");
        }
    }

    /** Whether the queries of a reconcile of node {@code nodeId} begun at {@code sinceNanos} wait still. */
    boolean holds(final int nodeId, final long sinceNanos, final long nowNanos)
    {
        return heldInProcess.test(nodeId) || holdNanos > 0 && nowNanos - sinceNanos < holdNanos;
    }
}
