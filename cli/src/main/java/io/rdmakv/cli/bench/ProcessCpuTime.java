package io.rdmakv.cli.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's CPU time (user + system) from {@code /proc/<pid>/stat}, in clock ticks, for the figures that tell
 * network problems from program problems: a server's CPU per operation ({@code rdmakv bench}, the SoftRoCE guest's
 * figures). Linux only.
 *
 * <pre>
 *   /proc/PID/stat:  pid (comm) state ppid ... utime stime ...    fields 14 and 15, counted from 1
 *                         ^ may hold spaces and ')': fields are counted after the LAST ')'
 * </pre>
 */
public final class ProcessCpuTime
{
    /** Linux's USER_HZ nearly everywhere: what {@link #ticksPerSecond()} answers when it cannot ask. */
    public static final long DEFAULT_TICKS_PER_SECOND = 100;

    private ProcessCpuTime()
    {
    }

    /**
     * User + system CPU time of process {@code pid} so far, in clock ticks.
     *
     * @throws IOException when the process is gone or its stat cannot be read or parsed.
     */
    public static long ticks(final long pid) throws IOException
    {
        final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        try
        {
            // f[0] is field 3 (state); utime and stime are fields 14 and 15.
            final String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
        catch (final RuntimeException ex)
        {
            throw new IOException("unexpected /proc/" + pid + "/stat: " + stat, ex);
        }
    }

    /** {@code sysconf(_SC_CLK_TCK)} through {@code getconf}; {@link #DEFAULT_TICKS_PER_SECOND} otherwise. */
    public static long ticksPerSecond()
    {
        try
        {
            final Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (p.waitFor() == 0)
            {
                final long v = Long.parseLong(out);
                if (v > 0)
                {
                    return v;
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // fall through to the usual value
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return DEFAULT_TICKS_PER_SECOND;
    }
}
