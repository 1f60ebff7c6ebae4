package io.rdmakv.cli.bench;


import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The process CPU time (user + system) of a server on this machine ({@link ProcessCpuTime}), so a run can
 * report the server's CPU per operation. The pid is given, or found from the TCP port the server listens on
 * ({@code /proc/net/tcp[6]} gives the socket's inode, {@code /proc/<pid>/fd} the process holding it). Linux only;
 * every method answers "unknown" instead of failing elsewhere.
 */
public final class ServerCpu
{
    private static final Path PROC = Paths.get("/proc");
    private static final int TCP_LISTEN = 0x0A;

    private final long pid;
    private final long ticksPerSecond;

    private ServerCpu(final long pid, final long ticksPerSecond)
    {
        this.pid = pid;
        this.ticksPerSecond = ticksPerSecond;
    }

    public static ServerCpu of(final long pid)
    {
        return new ServerCpu(pid, ProcessCpuTime.ticksPerSecond());
    }

    public long pid()
    {
        return pid;
    }

    /** User + system CPU time of the process so far, in nanoseconds; -1 when it cannot be read (process gone). */
    public long cpuNanos()
    {
        return cpuNanos(pid, ticksPerSecond);
    }

    /** The process listening on TCP {@code port} (IPv4 or IPv6) on this machine, if it can be found. */
    public static OptionalLong pidListeningOn(final int port)
    {
        final OptionalLong inode = listeningInode(port);
        if (inode.isEmpty())
        {
            return OptionalLong.empty();
        }
        final String target = "socket:[" + inode.getAsLong() + "]";
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(PROC, "[0-9]*"))
        {
            for (final Path process : processes)
            {
                final Path fds = process.resolve("fd");
                try (DirectoryStream<Path> links = Files.newDirectoryStream(fds))
                {
                    for (final Path link : links)
                    {
                        try
                        {
                            if (target.equals(Files.readSymbolicLink(link).toString()))
                            {
                                return OptionalLong.of(Long.parseLong(process.getFileName().toString()));
                            }
                        }
                        catch (final IOException ignore)
                        {
                            // the descriptor closed meanwhile
                        }
                    }
                }
                catch (final IOException | SecurityException ignore)
                {
                    // not ours to look into, or gone
                }
            }
        }
        catch (final IOException ignore)
        {
            // no /proc
        }
        return OptionalLong.empty();
    }

    static OptionalLong listeningInode(final int port)
    {
        for (final String table : List.of("net/tcp", "net/tcp6"))
        {
            try
            {
                final List<String> lines = Files.readAllLines(PROC.resolve(table), StandardCharsets.US_ASCII);
                for (int i = 1; i < lines.size(); i++)
                {
                    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                    final String[] f = lines.get(i).trim().split("\\s+");
                    if (f.length < 10)
                    {
                        continue;
                    }
                    final String local = f[1];
                    final int localPort = Integer.parseInt(local.substring(local.indexOf(':') + 1), 16);
                    if (localPort == port && Integer.parseInt(f[3], 16) == TCP_LISTEN)
                    {
                        return OptionalLong.of(Long.parseLong(f[9]));
                    }
                }
            }
            catch (final IOException | RuntimeException ignore)
            {
                // table missing or unreadable: try the next
            }
        }
        return OptionalLong.empty();
    }

    static long cpuNanos(final long pid, final long ticksPerSecond)
    {
        try
        {
            return ProcessCpuTime.ticks(pid) * 1_000_000_000L / ticksPerSecond;
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    @Override
    public String toString()
    {
        return String.format(Locale.ROOT, "pid %d", pid);
    }
}
