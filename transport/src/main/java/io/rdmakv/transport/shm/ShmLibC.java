package io.rdmakv.transport.shm;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The libc calls the shm transport needs beyond {@link io.rdmakv.transport.event.LibC} (whose {@code close} and
 * {@code write} it uses), bound by JNA direct mapping (no native code is compiled by the build): {@code memfd_create},
 * {@code ftruncate}, {@code mmap}, {@code munmap}, {@code open}, {@code epoll}, and the Unix domain socket calls with
 * {@code sendmsg}/{@code recvmsg} for passing file descriptors ({@code SCM_RIGHTS}).
 * Pointers and {@code size_t} travel as {@code long} (LP64); constants are those of Linux on x86-64 and aarch64.
 */
final class ShmLibC
{
    static final int PROT_READ = 0x1;
    static final int PROT_WRITE = 0x2;
    static final int MAP_SHARED = 0x01;
    static final long MAP_FAILED = -1L;
    static final int MFD_CLOEXEC = 0x1;
    static final int O_RDONLY = 0;
    static final int O_RDWR = 2;
    static final int O_CLOEXEC = 0x80000;
    static final int AF_UNIX = 1;
    static final int SOCK_SEQPACKET = 5;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SCM_RIGHTS = 1;
    static final int MSG_DONTWAIT = 0x40;
    static final int MSG_NOSIGNAL = 0x4000;
    static final int MSG_CMSG_CLOEXEC = 0x40000000;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int EADDRINUSE = 98;
    static final int ECONNREFUSED = 111;
    static final int ENOENT = 2;
    static final int EPOLL_CLOEXEC = 0x80000;
    static final int EPOLL_CTL_ADD = 1;
    static final int EPOLL_CTL_DEL = 2;
    static final int EPOLLIN = 0x1;
    /** {@code struct epoll_event} is packed on x86-64: u32 events, then u64 data at offset 4. */
    static final int SIZEOF_EPOLL_EVENT = 12;

    private static final Throwable LOAD_FAILURE;

    static
    {
        Throwable failure = null;
        try
        {
            Native.register(ShmLibC.class, NativeLibrary.getInstance("c"));
        }
        catch (final Throwable t)
        {
            failure = t;
        }
        LOAD_FAILURE = failure;
    }

    private ShmLibC()
    {
    }

    /** Why libc could not be bound, or {@code null}. */
    static Throwable loadFailure()
    {
        return LOAD_FAILURE;
    }

    static native int memfd_create(String name, int flags);

    static native int ftruncate(int fd, long length);

    static native long mmap(long addr, long length, int prot, int flags, int fd, long offset);

    static native int munmap(long addr, long length);

    static native int open(String path, int flags);

    static native int socket(int domain, int type, int protocol);

    static native int bind(int fd, long addr, int addrlen);

    static native int listen(int fd, int backlog);

    static native int accept4(int fd, long addr, long addrlen, int flags);

    static native int connect(int fd, long addr, int addrlen);

    static native long sendmsg(int fd, long msghdr, int flags);

    static native long recvmsg(int fd, long msghdr, int flags);

    static native int epoll_create1(int flags);

    static native int epoll_ctl(int epfd, int op, int fd, long event);

    static native int epoll_wait(int epfd, long events, int maxevents, int timeout);

    static int errno()
    {
        return Native.getLastError();
    }
}
