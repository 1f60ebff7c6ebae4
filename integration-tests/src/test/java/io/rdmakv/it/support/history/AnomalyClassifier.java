package io.rdmakv.it.support.history;

import java.util.List;
import java.util.Objects;

/**
 * Names the anomaly of a key the search found not linearizable, by looking for the simplest pattern that explains
 * it in real-time order: a value nobody wrote, then a read of a value surely overwritten before the read began (a
 * lost write when the overwriting write is never read afterwards, a stale read otherwise). When none matches, the
 * operation the search could not place is reported.
 */
final class AnomalyClassifier
{
    private AnomalyClassifier()
    {
    }

    /** {@code ops}: one key's operations, FAIL ones included (a value only a failed PUT wrote was never written). */
    static Anomaly classify(final String key, final List<Operation> ops, final RegisterSearch.Result result)
    {
        Anomaly first = null;
        for (final Operation read : ops)
        {
            if (read.kind() != Operation.Kind.GET || read.outcome() != Operation.Outcome.OK)
            {
                continue;
            }
            if (first != null && read.invokeNanos() >= first.time())
            {
                continue;
            }
            final Anomaly a = readAnomaly(key, ops, read, result.deepestOrder());
            if (a != null)
            {
                first = a;
            }
        }
        if (first != null)
        {
            return first;
        }
        final Operation stuck = result.stuckAt();
        return new Anomaly(Anomaly.Kind.NOT_LINEARIZABLE, key, stuck != null && stuck.kind() == Operation.Kind.GET ? stuck : null,
            stuck != null && stuck.isWrite() ? stuck : null,
            "no order of the operations respects both real time and the register; the search could not place "
                + stuck + " after the deepest partial order below", result.deepestOrder());
    }

    private static Anomaly readAnomaly(final String key, final List<Operation> ops, final Operation read,
        final List<Operation> context)
    {
        // Writes that could have produced the value read: not failed, invoked before the read completed.
        boolean anySource = read.value() == null; // the initial absent register
        long latestSourceCompletion = Long.MIN_VALUE;
        for (final Operation w : ops)
        {
            if (w.isWrite() && w.outcome() != Operation.Outcome.FAIL && w.invokeNanos() <= read.completeNanos()
                && Objects.equals(w.writtenValue(), read.value()))
            {
                anySource = true;
                latestSourceCompletion = Math.max(latestSourceCompletion, w.completeNanos());
            }
        }
        if (!anySource)
        {
            return new Anomaly(Anomaly.Kind.VALUE_NEVER_WRITTEN, key, read, null,
                "the read returned " + read.value() + ", which no PUT of this key that did not fail had written by then",
                context);
        }
        // An acknowledged write of another value, begun after every possible source completed and acknowledged
        // before the read began: the value read was surely overwritten.
        Operation overwriter = null;
        for (final Operation w : ops)
        {
            if (w.isWrite() && w.outcome() == Operation.Outcome.OK && w.completeNanos() < read.invokeNanos()
                && w.invokeNanos() > latestSourceCompletion && !Objects.equals(w.writtenValue(), read.value())
                && (overwriter == null || w.completeNanos() > overwriter.completeNanos()))
            {
                overwriter = w;
            }
        }
        if (overwriter == null)
        {
            return null;
        }
        if (neverSeenAgain(ops, overwriter))
        {
            return new Anomaly(Anomaly.Kind.LOST_WRITE, key, read, overwriter,
                "the acknowledged write below was never read back: this read, begun after its acknowledgement, returned "
                    + read.value() + ", written before it", context);
        }
        return new Anomaly(Anomaly.Kind.STALE_READ, key, read, overwriter,
            "the read returned " + read.value() + ", overwritten by the write below that was acknowledged before the read began",
            context);
    }

    /** No acknowledged read returns the write's value (for a PUT) after it was acknowledged. */
    private static boolean neverSeenAgain(final List<Operation> ops, final Operation write)
    {
        if (write.kind() != Operation.Kind.PUT)
        {
            return false;
        }
        for (final Operation r : ops)
        {
            if (r.kind() == Operation.Kind.GET && r.outcome() == Operation.Outcome.OK
                && r.completeNanos() > write.invokeNanos() && Objects.equals(r.value(), write.value()))
            {
                return false;
            }
        }
        return true;
    }
}
