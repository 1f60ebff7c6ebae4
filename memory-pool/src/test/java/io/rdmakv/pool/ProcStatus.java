package io.rdmakv.pool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads figures the kernel reports about this process, to check the arena against the kernel's own view. */
final class ProcStatus
{
    private ProcStatus()
    {
    }

    /** Bytes locked by this process ({@code VmLck} in /proc/self/status). */
    static long lockedBytes()
    {
        return kibField("/proc/self/status", "VmLck:") * 1024;
    }

    /** A "Name: N kB" field of a /proc file, in KiB. */
    static long kibField(final String file, final String name)
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of(file)))
            {
                if (line.startsWith(name))
                {
                    return Long.parseLong(line.substring(name.length()).replace("kB", "").trim());
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        throw new IllegalStateException(name + " not in " + file);
    }

    /** The soft "Max locked memory" limit in /proc/self/limits: bytes, or -1 for unlimited. */
    static long softMemlockLimit()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/limits")))
            {
                if (line.startsWith("Max locked memory"))
                {
                    final String soft = line.substring("Max locked memory".length()).trim().split("\\s+")[0];
                    return "unlimited".equals(soft) ? -1 : Long.parseLong(soft);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        throw new IllegalStateException("no memlock line in /proc/self/limits");
    }
}
