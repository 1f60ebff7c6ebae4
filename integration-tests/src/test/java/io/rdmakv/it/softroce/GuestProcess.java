package io.rdmakv.it.softroce;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child process (a verbs tool, a harness script) with its stdout and stderr merged into a temporary file, so no
 * reader thread is needed and a chatty tool can never block on a full pipe. Every wait has a deadline; a process
 * that overstays it is killed and reported as timed out, never left behind.
 */
public final class GuestProcess implements AutoCloseable
{
    private final List<String> command;
    private final Process process;
    private final File output;

    private GuestProcess(final List<String> command, final Process process, final File output)
    {
        this.command = command;
        this.process = process;
        this.output = output;
    }

    /**
     * Starts a command in the background.
     *
     * @param environment extra environment variables as name, value pairs (may be empty).
     * @param command     program and arguments.
     * @return the running process.
     */
    public static GuestProcess start(final List<String> environment, final String... command)
    {
        if (environment.size() % 2 != 0)
        {
            throw new IllegalArgumentException("environment must be name, value pairs: " + environment);
        }
        try
        {
            final File output = File.createTempFile("guest-process-", ".log");
            output.deleteOnExit();
            final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output);
            for (int i = 0; i < environment.size(); i += 2)
            {
                builder.environment().put(environment.get(i), environment.get(i + 1));
            }
            return new GuestProcess(List.of(command), builder.start(), output);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start " + String.join(" ", command), ex);
        }
    }

    /**
     * Starts a command in the background with the inherited environment.
     *
     * @param command program and arguments.
     * @return the running process.
     */
    public static GuestProcess start(final String... command)
    {
        return start(List.of(), command);
    }

    /**
     * Runs a command to completion.
     *
     * @param timeout how long it may take.
     * @param command program and arguments.
     * @return its result.
     */
    public static Result run(final Duration timeout, final String... command)
    {
        try (GuestProcess process = start(command))
        {
            return process.await(timeout);
        }
    }

    /**
     * @return whether the process is still running.
     */
    public boolean isAlive()
    {
        return process.isAlive();
    }

    /**
     * Waits for the process to exit, killing it when the deadline passes.
     *
     * @param timeout how long to wait.
     * @return exit code and output; {@link Result#timedOut()} when it had to be killed.
     */
    public Result await(final Duration timeout)
    {
        boolean exited;
        try
        {
            exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            exited = false;
        }
        if (!exited)
        {
            kill();
        }
        return new Result(command, exited ? process.exitValue() : -1, !exited, output());
    }

    /**
     * @return everything the process printed so far.
     */
    public String output()
    {
        try
        {
            return Files.readString(output.toPath());
        }
        catch (final IOException ex)
        {
            return "<output unreadable: " + ex + ">";
        }
    }

    /**
     * Kills the process if it still runs and removes its output file.
     */
    @Override
    public void close()
    {
        kill();
        // The file is deleted on exit too; deleting it now keeps long test runs tidy.
        if (!output.delete())
        {
            output.deleteOnExit();
        }
    }

    private void kill()
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
            try
            {
                process.waitFor(5, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The outcome of a finished (or killed) process.
     *
     * @param command  what ran.
     * @param exitCode its exit code, -1 when it was killed at the deadline.
     * @param timedOut whether it was killed at the deadline.
     * @param output   stdout and stderr, merged.
     */
    public record Result(List<String> command, int exitCode, boolean timedOut, String output)
    {
        /**
         * @return a description for assertion messages.
         */
        public String describe()
        {
            return String.join(" ", command) + " -> " + (timedOut ? "TIMED OUT" : "exit " + exitCode) +
                "\n" + output;
        }
    }
}
