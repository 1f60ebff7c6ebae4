package io.rdmakv.server.cli;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * SIGTERM and SIGINT as a request to stop, not as the JVM's own exit: the JVM's default handler starts the shutdown
 * sequence itself and then ends with 128 + signal (143 for SIGTERM) whatever the shutdown hooks do. With this handler
 * the signal only wakes the main thread, which closes the node gracefully and returns 0, as {@code systemd} and
 * Kubernetes expect of a clean stop.
 *
 * <p>{@code sun.misc.Signal} (module {@code jdk.unsupported}, open to the class path) is the only way to replace the
 * JVM's handler; where it is refused (e.g. {@code -Xrs}) the caller keeps its shutdown hook and the exit stays 143.
 */
@SuppressWarnings("sunapi")
final class StopSignals
{
    private static final Logger LOG = LoggerFactory.getLogger(StopSignals.class);
    private static final List<String> SIGNALS = List.of("TERM", "INT");

    private StopSignals()
    {
    }

    /**
     * Route SIGTERM and SIGINT to {@code onStop} (run on the JVM's signal thread, so it must only signal).
     *
     * @return the signals now handled; empty when the JVM refused them all.
     */
    static List<String> install(final Runnable onStop)
    {
        final List<String> installed = new ArrayList<>();
        for (final String name : SIGNALS)
        {
            try
            {
                sun.misc.Signal.handle(new sun.misc.Signal(name), signal ->
                {
                    LOG.info("SIG{} received: stopping gracefully", signal.getName());
                    onStop.run();
                });
                installed.add("SIG" + name);
            }
            catch (final IllegalArgumentException | UnsupportedOperationException ex)
            {
                LOG.debug("cannot handle SIG{} ({}); the JVM's shutdown hook stops the node instead", name,
                    ex.getMessage());
            }
        }
        return installed;
    }
}
