package io.rdmakv.it.support.history;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a recorded history against a linearizable key-value store: one read/write register per key, initially
 * absent (PUT sets it, DELETE clears it, GET reads it). Linearizability is local (Herlihy and Wing), so each key is
 * searched on its own ({@link RegisterSearch}), with a step budget per key.
 *
 * <p>Before the search: FAIL operations are dropped (they surely did not happen), and so are timed-out GETs (they
 * constrain nothing) and timed-out PUTs whose value no GET returned (placing such a PUT can only hide the value
 * before it from reads that need it, so leaving it out never loses a linearization; with conditional writes or
 * increments on the key it is kept: placing it may be what explains a refusal). A key the search finds not
 * linearizable gets its anomaly named ({@link AnomalyClassifier}); {@link Report#firstAnomaly()} is the earliest.
 */
public final class LinearizabilityChecker
{
    /** Default search steps per key: about a second of search, far above what a recorded fault test needs. */
    public static final long DEFAULT_MAX_STEPS_PER_KEY = 5_000_000;

    private final long maxStepsPerKey;

    public LinearizabilityChecker()
    {
        this(DEFAULT_MAX_STEPS_PER_KEY);
    }

    public LinearizabilityChecker(final long maxStepsPerKey)
    {
        if (maxStepsPerKey <= 0)
        {
            throw new IllegalArgumentException("maxStepsPerKey must be > 0: " + maxStepsPerKey);
        }
        this.maxStepsPerKey = maxStepsPerKey;
    }

    /** Check every key of {@code history}. */
    public Report check(final List<Operation> history)
    {
        final Map<String, List<Operation>> byKey = new LinkedHashMap<>();
        for (final Operation op : history)
        {
            byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
        }
        final List<Anomaly> anomalies = new ArrayList<>();
        final List<String> unknown = new ArrayList<>();
        long steps = 0;
        for (final Map.Entry<String, List<Operation>> e : byKey.entrySet())
        {
            final RegisterSearch.Result r = RegisterSearch.search(searchable(e.getValue()), maxStepsPerKey);
            steps += r.steps();
            switch (r.verdict())
            {
                case LINEARIZABLE -> { }
                case UNKNOWN -> unknown.add(e.getKey());
                case NOT_LINEARIZABLE -> anomalies.add(AnomalyClassifier.classify(e.getKey(), e.getValue(), r));
            }
        }
        anomalies.sort((a, b) -> Long.compare(a.time(), b.time()));
        return new Report(history.size(), byKey.size(), steps, List.copyOf(anomalies), List.copyOf(unknown));
    }

    private static List<Operation> searchable(final List<Operation> ops)
    {
        final Set<String> valuesRead = new HashSet<>();
        boolean decided = false;
        for (final Operation op : ops)
        {
            decided |= op.kind().decides();
            if (op.kind() == Operation.Kind.GET && op.outcome() == Operation.Outcome.OK && op.value() != null)
            {
                valuesRead.add(op.value());
            }
        }
        final List<Operation> out = new ArrayList<>(ops.size());
        for (final Operation op : ops)
        {
            final boolean keep = switch (op.outcome())
            {
                case OK -> true;
                case FAIL -> false;
                case TIMEOUT -> op.kind() == Operation.Kind.DELETE || op.kind().decides()
                    || op.kind() == Operation.Kind.PUT && (decided || valuesRead.contains(op.value()));
            };
            if (keep)
            {
                out.add(op);
            }
        }
        return out;
    }

    /**
     * What a check found.
     *
     * @param operations  operations in the history.
     * @param keys        distinct keys.
     * @param steps       search steps over all keys.
     * @param anomalies   one per non-linearizable key, earliest first.
     * @param unknownKeys keys whose search ran out of its step budget (neither proven nor refuted).
     */
    public record Report(int operations, int keys, long steps, List<Anomaly> anomalies, List<String> unknownKeys)
    {
        /** True when every key was proven linearizable. */
        public boolean linearizable()
        {
            return anomalies.isEmpty() && unknownKeys.isEmpty();
        }

        /** The earliest anomaly, or null. */
        public Anomaly firstAnomaly()
        {
            return anomalies.isEmpty() ? null : anomalies.get(0);
        }

        /** Number of anomalies of {@code kind}. */
        public long count(final Anomaly.Kind kind)
        {
            return anomalies.stream().filter(a -> a.kind() == kind).count();
        }

        /** Throws an {@link AssertionError} naming the first anomaly unless every key was proven linearizable. */
        public void assertLinearizable()
        {
            if (!linearizable())
            {
                throw new AssertionError(this.toString());
            }
        }

        @Override
        public String toString()
        {
            final StringBuilder b = new StringBuilder("checked " + operations + " operations on " + keys + " keys ("
                + steps + " search steps): ");
            if (linearizable())
            {
                return b.append("linearizable").toString();
            }
            b.append(anomalies.size()).append(" non-linearizable key(s), ").append(unknownKeys.size())
                .append(" key(s) unknown (step budget spent)");
            if (!unknownKeys.isEmpty())
            {
                b.append(": ").append(unknownKeys.subList(0, Math.min(5, unknownKeys.size())));
            }
            if (!anomalies.isEmpty())
            {
                b.append("\nfirst anomaly: ").append(firstAnomaly());
            }
            return b.toString();
        }
    }
}
