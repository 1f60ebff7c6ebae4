package io.rdmakv.it.fleet;

import io.rdmakv.it.support.ServerProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Lines a server process logged (stdout and stderr), waited for by content. */
public final class ServerLog
{
    private ServerLog()
    {
    }

    /**
     * The first line containing every one of {@code parts}, waiting for it up to {@code timeout} (the node logs an
     * ATTACH before it answers it, but the line may still be in the child's stream buffer).
     *
     * @return the line.
     * @throws AssertionError with the logs' tails when no such line appears in time.
     */
    public static String awaitLine(final ServerProcess server, final Duration timeout, final String... parts)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            for (final Path log : List.of(server.stderrLog(), server.stdoutLog()))
            {
                for (final String line : lines(log))
                {
                    if (List.of(parts).stream().allMatch(line::contains))
                    {
                        return line;
                    }
                }
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("no server log line with " + List.of(parts) + server.diagnosis());
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    private static List<String> lines(final Path log)
    {
        try
        {
            return Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
