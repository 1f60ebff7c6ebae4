package io.rdmakv.it.faults;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvException;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Builds a fault workload's clients (each build is a handshake with a seed and a data connection to it) and keeps
 * what the run's figures need: builds that succeeded and failed, and the slowest of each. In the SoftRoCE guest these
 * figures are where the client's connect timeout comes from.
 */
final class TimedClients implements Supplier<KvClient>
{
    private final Supplier<KvClient> builder;
    private final AtomicLong built = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong slowestBuiltNanos = new AtomicLong();
    private final AtomicLong slowestFailedNanos = new AtomicLong();

    TimedClients(final Supplier<KvClient> builder)
    {
        this.builder = builder;
    }

    @Override
    public KvClient get()
    {
        final long start = System.nanoTime();
        try
        {
            final KvClient client = builder.get();
            built.incrementAndGet();
            slowestBuiltNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
            return client;
        }
        catch (final KvException ex)
        {
            failed.incrementAndGet();
            slowestFailedNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
            throw ex;
        }
    }

    @Override
    public String toString()
    {
        return String.format(Locale.ROOT, "clients built %d (slowest %.1f s), builds failed %d (slowest %.1f s)",
            built.get(), slowestBuiltNanos.get() / 1e9, failed.get(), slowestFailedNanos.get() / 1e9);
    }
}
