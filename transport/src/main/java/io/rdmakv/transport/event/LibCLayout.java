package io.rdmakv.transport.event;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The libc ABI values {@link LibC}'s callers use (glibc, x86-64): flags, {@code poll} events and the layout of
 * {@code struct pollfd}. Checked against {@code <sys/eventfd.h>}, {@code <poll.h>}, {@code <fcntl.h>} and
 * {@code <errno.h>} by {@code LibCLayoutTest}, which compiles a C program and fails on any mismatch.
 *
 * <pre>
 *   struct pollfd (8 bytes)
 *    0                   4         6         8
 *   +-------------------+---------+---------+
 *   | int fd            | events  | revents |
 *   +-------------------+---------+---------+
 * </pre>
 */
public final class LibCLayout
{
    public static final int SIZEOF_POLLFD = 8;
    public static final int POLLFD_FD = 0;
    public static final int POLLFD_EVENTS = 4;
    public static final int POLLFD_REVENTS = 6;
    public static final int POLLIN = 0x1;
    public static final int POLLERR = 0x8;
    public static final int POLLHUP = 0x10;
    public static final int POLLNVAL = 0x20;
    public static final int EFD_NONBLOCK = 0x800;
    public static final int EFD_CLOEXEC = 0x80000;
    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int O_NONBLOCK = 0x800;
    public static final int EAGAIN = 11;
    public static final int EINTR = 4;

    private LibCLayout()
    {
    }

    /** Every constant above under the name the C layout program prints for it, for the layout test. */
    public static Map<String, Long> byCName()
    {
        final Map<String, Long> m = new LinkedHashMap<>();
        m.put("sizeof.pollfd", (long)SIZEOF_POLLFD);
        m.put("pollfd.fd", (long)POLLFD_FD);
        m.put("pollfd.events", (long)POLLFD_EVENTS);
        m.put("pollfd.revents", (long)POLLFD_REVENTS);
        m.put("POLLIN", (long)POLLIN);
        m.put("POLLERR", (long)POLLERR);
        m.put("POLLHUP", (long)POLLHUP);
        m.put("POLLNVAL", (long)POLLNVAL);
        m.put("EFD_NONBLOCK", (long)EFD_NONBLOCK);
        m.put("EFD_CLOEXEC", (long)EFD_CLOEXEC);
        m.put("F_GETFL", (long)F_GETFL);
        m.put("F_SETFL", (long)F_SETFL);
        m.put("O_NONBLOCK", (long)O_NONBLOCK);
        m.put("EAGAIN", (long)EAGAIN);
        m.put("EINTR", (long)EINTR);
        return m;
    }
}
