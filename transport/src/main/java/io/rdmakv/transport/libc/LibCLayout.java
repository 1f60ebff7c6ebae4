package io.rdmakv.transport.libc;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The libc ABI values {@link LibC}'s callers use (glibc, x86-64): flags, {@code poll} and {@code epoll} events, errno
 * values, and the layouts of {@code struct pollfd} and {@code struct epoll_event}. Checked against
 * {@code <sys/eventfd.h>}, {@code <poll.h>}, {@code <fcntl.h>}, {@code <errno.h>}, {@code <sys/mman.h>},
 * {@code <sys/socket.h>} and {@code <sys/epoll.h>} by {@code LibCLayoutTest}, which compiles a C program and fails
 * on any mismatch.
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
    public static final int F_DUPFD_CLOEXEC = 1030;
    public static final int O_NONBLOCK = 0x800;
    public static final int EAGAIN = 11;
    public static final int EINTR = 4;
    public static final int ENOENT = 2;
    public static final int EADDRINUSE = 98;
    public static final int ECONNREFUSED = 111;
    public static final int PROT_READ = 0x1;
    public static final int PROT_WRITE = 0x2;
    public static final int MAP_SHARED = 0x01;
    public static final long MAP_FAILED = -1L;
    public static final int MFD_CLOEXEC = 0x1;
    public static final int O_RDONLY = 0;
    public static final int O_RDWR = 2;
    public static final int O_CLOEXEC = 0x80000;
    public static final int AF_UNIX = 1;
    public static final int SOCK_SEQPACKET = 5;
    public static final int SOCK_NONBLOCK = 0x800;
    public static final int SOCK_CLOEXEC = 0x80000;
    public static final int SOL_SOCKET = 1;
    public static final int SCM_RIGHTS = 1;
    public static final int MSG_DONTWAIT = 0x40;
    public static final int MSG_NOSIGNAL = 0x4000;
    public static final int MSG_CMSG_CLOEXEC = 0x40000000;
    public static final int EPOLL_CLOEXEC = 0x80000;
    public static final int EPOLL_CTL_ADD = 1;
    public static final int EPOLL_CTL_DEL = 2;
    public static final int EPOLLIN = 0x1;
    /** {@code struct epoll_event} is packed on x86-64: u32 events, then the u64 data at offset 4. */
    public static final int SIZEOF_EPOLL_EVENT = 12;

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
        m.put("F_DUPFD_CLOEXEC", (long)F_DUPFD_CLOEXEC);
        m.put("O_NONBLOCK", (long)O_NONBLOCK);
        m.put("EAGAIN", (long)EAGAIN);
        m.put("EINTR", (long)EINTR);
        m.put("ENOENT", (long)ENOENT);
        m.put("EADDRINUSE", (long)EADDRINUSE);
        m.put("ECONNREFUSED", (long)ECONNREFUSED);
        m.put("PROT_READ", (long)PROT_READ);
        m.put("PROT_WRITE", (long)PROT_WRITE);
        m.put("MAP_SHARED", (long)MAP_SHARED);
        m.put("MAP_FAILED", (long)MAP_FAILED);
        m.put("MFD_CLOEXEC", (long)MFD_CLOEXEC);
        m.put("O_RDONLY", (long)O_RDONLY);
        m.put("O_RDWR", (long)O_RDWR);
        m.put("O_CLOEXEC", (long)O_CLOEXEC);
        m.put("AF_UNIX", (long)AF_UNIX);
        m.put("SOCK_SEQPACKET", (long)SOCK_SEQPACKET);
        m.put("SOCK_NONBLOCK", (long)SOCK_NONBLOCK);
        m.put("SOCK_CLOEXEC", (long)SOCK_CLOEXEC);
        m.put("SOL_SOCKET", (long)SOL_SOCKET);
        m.put("SCM_RIGHTS", (long)SCM_RIGHTS);
        m.put("MSG_DONTWAIT", (long)MSG_DONTWAIT);
        m.put("MSG_NOSIGNAL", (long)MSG_NOSIGNAL);
        m.put("MSG_CMSG_CLOEXEC", (long)MSG_CMSG_CLOEXEC);
        m.put("EPOLL_CLOEXEC", (long)EPOLL_CLOEXEC);
        m.put("EPOLL_CTL_ADD", (long)EPOLL_CTL_ADD);
        m.put("EPOLL_CTL_DEL", (long)EPOLL_CTL_DEL);
        m.put("EPOLLIN", (long)EPOLLIN);
        m.put("sizeof.epoll_event", (long)SIZEOF_EPOLL_EVENT);
        return m;
    }
}
