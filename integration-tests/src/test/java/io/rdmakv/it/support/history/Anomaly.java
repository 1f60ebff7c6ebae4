package io.rdmakv.it.support.history;

import java.util.List;

/**
 * Why one key's history has no linearization, named as precisely as the operations allow.
 *
 * @param kind        the class of the anomaly.
 * @param key         the register.
 * @param read        the GET that shows it (null for {@link Kind#NOT_LINEARIZABLE} without a named read).
 * @param overwritten the acknowledged write the read should have seen (stale read, lost write), else null.
 * @param explanation one sentence a reader of a failed test understands without the history.
 * @param context     the operations of the deepest partial linearization the search reached, in order.
 */
public record Anomaly(Kind kind, String key, Operation read, Operation overwritten, String explanation,
    List<Operation> context)
{
    /** Classes of anomaly, from the most to the least specific. */
    public enum Kind
    {
        /** A GET returned a value no PUT of the key wrote (or only a PUT that surely failed). */
        VALUE_NEVER_WRITTEN,
        /** An acknowledged write was never seen again: reads begun after its acknowledgement returned older values. */
        LOST_WRITE,
        /** A GET returned a value already overwritten by a write acknowledged before the GET began. */
        STALE_READ,
        /** No linearization exists, and no single read shows one of the patterns above. */
        NOT_LINEARIZABLE
    }

    /** The read's invocation time, or the time of the operation the search could not place; orders anomalies. */
    public long time()
    {
        return read != null ? read.invokeNanos() : overwritten != null ? overwritten.invokeNanos() : Long.MAX_VALUE;
    }

    @Override
    public String toString()
    {
        final StringBuilder b = new StringBuilder(kind + " on key " + key + ": " + explanation);
        if (read != null)
        {
            b.append("\n  read:        ").append(read);
        }
        if (overwritten != null)
        {
            b.append("\n  overwritten: ").append(overwritten);
        }
        if (!context.isEmpty())
        {
            b.append("\n  deepest partial linearization (").append(context.size()).append(" ops), last ones:");
            for (final Operation op : context.subList(Math.max(0, context.size() - 8), context.size()))
            {
                b.append("\n    ").append(op);
            }
        }
        return b.toString();
    }
}
