package io.rdmakv.transport.shm;

import io.rdmakv.transport.libc.LibC;

/**
 * Whether this process can use shm at all, found once by trying what the transport needs: a memory file
 * ({@code memfd_create}, which a seccomp profile or an old kernel may refuse) and a listening socket in the abstract
 * Unix namespace (which a sandbox may deny). Both are closed at once; nothing is left behind.
 */
final class ShmProbe
{
    private static final long PAGE = 4096;

    private ShmProbe()
    {
    }

    /** Null when shm works here, else why not (computed on first use, then remembered). */
    static String cause()
    {
        return Holder.CAUSE;
    }

    private static String probe()
    {
        final Throwable failure = LibC.loadFailure();
        if (failure != null)
        {
            return "libc could not be bound: " + failure;
        }
        try
        {
            SharedMapping.create("rdmakv-shm-probe", PAGE).close();
        }
        catch (final RuntimeException | LinkageError ex)
        {
            return "no memory file for a shared pool: " + ex.getMessage();
        }
        try
        {
            final UnixSeqPacket socket = UnixSeqPacket.listen(
                "rdmakv-shm-probe-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
            if (socket != null)
            {
                socket.close();
            }
        }
        catch (final RuntimeException | LinkageError ex)
        {
            return "no listening socket in the abstract Unix namespace: " + ex.getMessage();
        }
        return null;
    }

    /** Lazy: the probe runs when a selection first asks, not when the class path is scanned. */
    private static final class Holder
    {
        private static final String CAUSE = probe();
    }
}
