package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/** The live values of {@link ClientCounter}s, updated from any thread without allocation. */
final class ClientCounters
{
    private final AtomicLongArray values = new AtomicLongArray(ClientCounter.values().length);

    void increment(final ClientCounter counter)
    {
        values.getAndIncrement(counter.ordinal());
    }

    long get(final ClientCounter counter)
    {
        return values.get(counter.ordinal());
    }

    Map<ClientCounter, Long> snapshot()
    {
        final Map<ClientCounter, Long> map = new EnumMap<>(ClientCounter.class);
        for (final ClientCounter c : ClientCounter.values())
        {
            map.put(c, get(c));
        }
        return map;
    }
}
