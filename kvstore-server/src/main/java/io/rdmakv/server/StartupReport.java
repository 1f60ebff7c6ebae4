package io.rdmakv.server;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * How long a node took to start serving, phase by phase: the figure of the start-up target ("a node with 1 GiB of
 * data is serving one-sided GETs for all of it within 10 s") and where the time went. {@link KvServer} logs
 * {@link #format()} as one line once the control port accepts clients.
 *
 * @param sinceProcessStartMillis from the OS's start time of this process (JVM start-up included) to serving; -1
 *                                when the OS does not report a start time. For a node embedded in a longer-running
 *                                process (tests) it includes whatever that process did before.
 * @param startMillis             time spent in {@link KvServer#start}.
 * @param poolKeys                keys in the pool when serving began.
 * @param poolBytes               key and value bytes in the pool.
 * @param keysInStore             keys in RocksDB: counted by the warm-up's scan, or RocksDB's estimate when the scan
 *                                stopped because the pool was full ({@code keysInStoreExact} false).
 * @param keysInStoreExact        {@code keysInStore} was counted.
 * @param complete                the pool holds every key: one-sided GETs serve all of them.
 * @param phases                  the phases in order; overlapped ones ran on another thread at the same time as the
 *                                phase before them.
 */
public record StartupReport(long sinceProcessStartMillis, long startMillis, long poolKeys, long poolBytes,
                            long keysInStore, boolean keysInStoreExact, boolean complete, List<Phase> phases)
{
    public StartupReport
    {
        phases = List.copyOf(phases);
    }

    /**
     * Milliseconds from this process's start (as the OS recorded it) to now, or -1 when unknown.
     */
    public static long millisSinceProcessStart()
    {
        return ProcessHandle.current().info().startInstant()
            .map(start -> Math.max(0, Instant.now().toEpochMilli() - start.toEpochMilli()))
            .orElse(-1L);
    }

    /** The duration of the phase named {@code name}, or -1. */
    public long phaseMillis(final String name)
    {
        for (final Phase p : phases)
        {
            if (p.name().equals(name))
            {
                return p.millis();
            }
        }
        return -1;
    }

    /** The one log line: what is served, when, and the phases. */
    public String format()
    {
        final StringBuilder sb = new StringBuilder(256);
        if (complete)
        {
            sb.append("serving one-sided GETs for every key: ").append(poolKeys).append(" keys, ");
        }
        else
        {
            sb.append("serving one-sided GETs for ").append(poolKeys).append(" keys of ")
                .append(keysInStoreExact ? "" : "about ").append(keysInStore)
                .append(" (pool INCOMPLETE: the others by RPC GET), ");
        }
        sb.append(String.format("%.1f MiB", poolBytes / (double)(1 << 20)));
        if (sinceProcessStartMillis >= 0)
        {
            sb.append(", ").append(sinceProcessStartMillis).append(" ms after process start");
        }
        sb.append("; start ").append(startMillis).append(" ms =");
        String separator = " ";
        for (final Phase p : phases)
        {
            sb.append(p.overlapped() ? " || " : separator).append(p.name()).append(' ').append(p.millis());
            separator = ", ";
        }
        return sb.toString();
    }

    /**
     * @param name       what ran.
     * @param millis     how long it took.
     * @param overlapped it ran on another thread while the phase before it ran.
     */
    public record Phase(String name, long millis, boolean overlapped)
    {
    }

    /** Collects phases as start-up proceeds (one thread). */
    static final class Builder
    {
        private final long startNanos = System.nanoTime();
        private final List<Phase> phases = new ArrayList<>();
        private long markNanos = startNanos;

        /** A phase that ended now, having started at the previous mark (or at the start). */
        void mark(final String name)
        {
            final long now = System.nanoTime();
            phases.add(new Phase(name, (now - markNanos) / 1_000_000, false));
            markNanos = now;
        }

        /** A phase measured elsewhere. */
        void add(final String name, final long millis, final boolean overlapped)
        {
            phases.add(new Phase(name, millis, overlapped));
        }

        /** Restart the running mark (after phases added with {@link #add}). */
        void resetMark()
        {
            markNanos = System.nanoTime();
        }

        StartupReport build(
            final long poolKeys, final long poolBytes, final long keysInStore, final boolean keysInStoreExact,
            final boolean complete)
        {
            return new StartupReport(millisSinceProcessStart(), (System.nanoTime() - startNanos) / 1_000_000,
                poolKeys, poolBytes, keysInStore, keysInStoreExact, complete, phases);
        }
    }
}
