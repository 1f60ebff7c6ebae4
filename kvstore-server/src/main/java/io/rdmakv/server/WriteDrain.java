package io.rdmakv.server;

import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * A stopping node's wait for the writes still in flight (FSYNC writes waiting for their group commit) once it
 * accepts no more: it watches {@link ServerCounter#IN_FLIGHT_WRITES} every 5 ms for at most {@link #TIMEOUT}, then
 * warns of any left. Runs on the thread that closes the node.
 */
final class WriteDrain
{
    /** Logs as the node it stops. */
    private static final Logger LOG = LoggerFactory.getLogger(KvServer.class);
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private WriteDrain()
    {
    }

    /** Return when no write is in flight any more, or after {@link #TIMEOUT} (logged). */
    static void await(final ServerCounters counters)
    {
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (counters.get(ServerCounter.IN_FLIGHT_WRITES) > 0 && System.nanoTime() < deadline)
        {
            sleepQuietly();
        }
        if (counters.get(ServerCounter.IN_FLIGHT_WRITES) > 0)
        {
            LOG.warn("{} writes still waiting for sync after {}; they are durable once synced but unanswered",
                counters.get(ServerCounter.IN_FLIGHT_WRITES), TIMEOUT);
        }
    }

    private static void sleepQuietly()
    {
        try
        {
            Thread.sleep(5);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
