package io.rdmakv.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Every thread's stack of a child JVM, in its own stdout log: what a test quotes when a process it waits for never
 * gets there (e.g. a node that prints no READY line). Diagnostics only, never a verdict.
 */
public final class ThreadDumps
{
    private static final String MARKER = "Full thread dump";

    private ThreadDumps()
    {
    }

    /**
     * SIGQUIT {@code pid} (a JVM prints its thread dump to stdout and keeps running) and wait, at most 10 s, until the
     * dump is in {@code stdoutLog}.
     */
    public static void request(final long pid, final Path stdoutLog)
    {
        try
        {
            final Process quit = new ProcessBuilder("kill", "-QUIT", Long.toString(pid)).redirectErrorStream(true)
                .start();
            quit.waitFor(10, TimeUnit.SECONDS);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() - deadline < 0 && !Files.readString(stdoutLog).contains(MARKER))
            {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
        catch (final IOException | UncheckedIOException ex)
        {
            // No dump: the caller reports its failure without one.
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
