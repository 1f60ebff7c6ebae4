package io.rdmakv.it.support.faults;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Faults of a whole process, by pid: SIGKILL, and SIGSTOP/SIGCONT (a paused process keeps its sockets and its
 * registered memory; its kernel still accepts connections and an RDMA NIC still answers reads of it, but it answers
 * no request itself). {@link #pause} returns a handle whose {@code close()} resumes, so a test resumes in a
 * try-with-resources even when it fails.
 */
public final class ProcessFaults
{
    private ProcessFaults()
    {
    }

    /** SIGKILL {@code pid} (no shutdown hook runs, nothing is flushed) and wait, at most 30 s, until it is gone. */
    public static void kill9(final long pid)
    {
        final ProcessHandle handle = ProcessHandle.of(pid).orElse(null);
        signal(pid, "KILL");
        if (handle != null)
        {
            try
            {
                handle.onExit().get(30, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for pid " + pid + " to die", ex);
            }
            catch (final ExecutionException | TimeoutException ex)
            {
                throw new IllegalStateException("pid " + pid + " still there 30 s after SIGKILL", ex);
            }
        }
    }

    /**
     * SIGSTOP {@code pid} until the returned handle is closed (SIGCONT). Returns once every thread of the process is
     * stopped: the kernel stops each thread when it next runs, which on a loaded host can be a while after
     * {@code kill} returned, and a pause is only a pause from then on.
     */
    public static Paused pause(final long pid)
    {
        signal(pid, "STOP");
        awaitThreads(pid, true);
        return new Paused(pid);
    }

    /** The state letter of {@code pid} in /proc (R, S, D, T for stopped, Z), or '?' when it no longer exists. */
    public static char state(final long pid)
    {
        return stateOf(Path.of("/proc", Long.toString(pid), "stat"));
    }

    /** Wait, at most 30 s, until every thread of {@code pid} is stopped (or none is); return at once when it is gone. */
    private static void awaitThreads(final long pid, final boolean stopped)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!allThreads(pid, stopped))
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("pid " + pid + ": not every thread " + (stopped ? "stopped" :
                    "resumed") + " within 30 s of the signal");
            }
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for pid " + pid, ex);
            }
        }
    }

    /** True when every thread of {@code pid} in /proc is (or is not) stopped, or when the process is gone. */
    private static boolean allThreads(final long pid, final boolean stopped)
    {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task")))
        {
            for (final Path task : tasks)
            {
                final char state = stateOf(task.resolve("stat"));
                // '?': the thread ended meanwhile; Z and X: it is exiting and will never stop or resume.
                final boolean counts = state != '?' && state != 'Z' && state != 'X';
                if (counts && (state == 'T' || state == 't') != stopped)
                {
                    return false;
                }
            }
            return true;
        }
        catch (final IOException ex)
        {
            return true; // gone
        }
    }

    private static char stateOf(final Path stat)
    {
        try
        {
            final String text = Files.readString(stat);
            // pid (comm) S ...: comm may hold spaces and parentheses, the state follows the last ')'.
            return text.charAt(text.lastIndexOf(')') + 2);
        }
        catch (final IOException ex)
        {
            return '?';
        }
    }

    private static void signal(final long pid, final String signal)
    {
        if (pid <= 1)
        {
            throw new IllegalArgumentException("refusing to signal pid " + pid);
        }
        Commands.runOrThrow(List.of("kill", "-" + signal, Long.toString(pid)));
    }

    /** A process stopped by {@link #pause}; {@link #close()} sends SIGCONT (once; a no-op when it is gone). */
    public static final class Paused implements AutoCloseable
    {
        private final long pid;
        private boolean resumed;

        private Paused(final long pid)
        {
            this.pid = pid;
        }

        public long pid()
        {
            return pid;
        }

        /** SIGCONT, and wait until no thread of the process is stopped any more. */
        @Override
        public void close()
        {
            if (!resumed)
            {
                resumed = true;
                if (state(pid) != '?')
                {
                    Commands.run(List.of("kill", "-CONT", Long.toString(pid)));
                    awaitThreads(pid, false);
                }
            }
        }
    }
}
