package io.rdmakv.server.counters;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Storage for {@link ServerCounter}s: one slot per counter in an {@link AtomicLongArray}, so the request thread, the
 * control plane's event loop and readers (STATS, tests) share it without locks or allocation. Extra read-only gauges
 * owned elsewhere (pool evictions, registration count) are added with {@link #gauge}.
 */
public final class ServerCounters
{
    private final AtomicLongArray values = new AtomicLongArray(ServerCounter.values().length);
    private final Map<String, LongSupplier> gauges = new LinkedHashMap<>();
    private final Map<String, java.util.function.Supplier<String>> infos = new LinkedHashMap<>();

    public void increment(final ServerCounter counter)
    {
        values.incrementAndGet(counter.ordinal());
    }

    public void decrement(final ServerCounter counter)
    {
        values.decrementAndGet(counter.ordinal());
    }

    public long get(final ServerCounter counter)
    {
        return values.get(counter.ordinal());
    }

    /** Register a gauge read on demand (before serving starts; not thread-safe against {@link #render}). */
    public synchronized void gauge(final String label, final LongSupplier supplier)
    {
        gauges.put(label, supplier);
    }

    /**
     * Register a text fact read on demand for STATS (version, transport and why, latency summaries): not a number,
     * so not a metric. Before serving starts.
     */
    public synchronized void info(final String label, final java.util.function.Supplier<String> supplier)
    {
        infos.put(label, supplier);
    }

    /** The value of a registered gauge, or -1 if unknown. */
    public synchronized long gauge(final String label)
    {
        final LongSupplier s = gauges.get(label);
        return s == null ? -1 : s.getAsLong();
    }

    /** The labels of the registered gauges, in registration order (metrics bind each one). */
    public synchronized java.util.List<String> gaugeLabels()
    {
        return java.util.List.copyOf(gauges.keySet());
    }

    /** {@code label=value} lines, counters, gauges, then facts (STATS body); a fact's line breaks become spaces. */
    public synchronized String render()
    {
        final StringBuilder sb = new StringBuilder(1024);
        for (final ServerCounter c : ServerCounter.values())
        {
            sb.append(c.label()).append('=').append(get(c)).append('\n');
        }
        gauges.forEach((label, supplier) -> sb.append(label).append('=').append(supplier.getAsLong()).append('\n'));
        infos.forEach((label, supplier) -> sb.append(label).append('=')
            .append(String.valueOf(supplier.get()).replace('\n', ' ')).append('\n'));
        return sb.toString();
    }
}
