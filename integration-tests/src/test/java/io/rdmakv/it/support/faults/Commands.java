package io.rdmakv.it.support.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the short host commands the injectors need ({@code ip}, {@code kill}), bounded in time, output captured. */
final class Commands
{
    /** Exit code and merged output of one command. */
    record Result(int exitCode, String output)
    {
        boolean ok()
        {
            return exitCode == 0;
        }
    }

    private Commands()
    {
    }

    /** Run {@code command}; never throws on a non-zero exit (see {@link #runOrThrow}). */
    static Result run(final List<String> command)
    {
        try
        {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!p.waitFor(30, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
                return new Result(-1, "timed out after 30 s: " + String.join(" ", command));
            }
            return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        catch (final IOException ex)
        {
            return new Result(-1, "cannot run " + command + ": " + ex.getMessage());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command, ex);
        }
    }

    /** Run {@code command} and throw, with its output, unless it exits 0. */
    static String runOrThrow(final List<String> command)
    {
        final Result r = run(command);
        if (!r.ok())
        {
            throw new IllegalStateException(String.join(" ", command) + " exited " + r.exitCode() + ": " + r.output().strip());
        }
        return r.output();
    }

    /** True when this JVM runs as root (uid 0), read from /proc/self/status. */
    static boolean isRoot()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("Uid:"))
                {
                    return line.split("\\s+")[1].equals("0");
                }
            }
            return false;
        }
        catch (final IOException | UncheckedIOException ex)
        {
            return false;
        }
    }
}
