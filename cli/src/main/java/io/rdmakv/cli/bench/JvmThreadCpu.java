package io.rdmakv.cli.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The CPU time of this JVM's own service threads (JIT compilers, garbage collector, VM thread), read per thread from
 * {@code /proc/self/task}, so a run can say how much of the generator's CPU per operation was the JVM warming up or
 * collecting rather than the client's request path. Linux only; empty snapshots elsewhere.
 *
 * <pre>
 *   /proc/self/task/TID/stat:  tid (comm) state ... utime stime ...     comm: "C2 CompilerThre", "GC Thread#0", ...
 *   between two snapshots: threads in both count their difference, threads new in the second all of theirs
 *   (a thread that ended in between is lost: compiler threads come and go with -XX:+UseDynamicNumberOfCompilerThreads)
 * </pre>
 */
final class JvmThreadCpu
{
    /** Thread names (as /proc truncates them to 15 characters) of the JVM's service threads. */
    private static final List<String> SERVICE_PREFIXES =
        List.of("C1 CompilerThre", "C2 CompilerThre", "GC Thread", "G1 ", "VM Thread", "Sweeper thread");
    private static final Path TASKS = Path.of("/proc/self/task");

    private JvmThreadCpu()
    {
    }

    /** Ticks (user + system) so far of each service thread, by thread id. */
    static Map<Long, Long> snapshot()
    {
        final Map<Long, Long> ticks = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS))
        {
            for (final Path task : tasks)
            {
                try
                {
                    final String stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
                    final String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    if (isService(comm))
                    {
                        // After the last ')': field 3 (state) first; utime and stime are fields 14 and 15.
                        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
                        ticks.put(Long.parseLong(task.getFileName().toString()),
                            Long.parseLong(f[11]) + Long.parseLong(f[12]));
                    }
                }
                catch (final IOException | RuntimeException ignore)
                {
                    // the thread ended meanwhile
                }
            }
        }
        catch (final IOException | RuntimeException ignore)
        {
            // no /proc: nothing known
        }
        return ticks;
    }

    /** Nanoseconds the service threads ran between two snapshots. */
    static long nanosBetween(final Map<Long, Long> before, final Map<Long, Long> after, final long ticksPerSecond)
    {
        long ticks = 0;
        for (final Map.Entry<Long, Long> e : after.entrySet())
        {
            ticks += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return Math.max(0, ticks) * 1_000_000_000L / ticksPerSecond;
    }

    static boolean isService(final String comm)
    {
        for (final String prefix : SERVICE_PREFIXES)
        {
            if (comm.startsWith(prefix))
            {
                return true;
            }
        }
        return false;
    }
}
