package io.rdmakv.transport.libc;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The transport's one binding of libc, by JNA direct mapping (no native code is compiled by the build): for a sleeping
 * progress thread {@code eventfd}, {@code poll}, {@code read}, {@code write}, {@code close} and {@code fcntl}
 * (package {@code event}); for {@code shm} the memory file ({@code memfd_create}, {@code ftruncate}, {@code mmap},
 * {@code munmap}, {@code open}), the descriptor-passing {@code AF_UNIX} socket ({@code socket}, {@code bind},
 * {@code listen}, {@code accept4}, {@code connect}, {@code sendmsg}, {@code recvmsg}) and {@code epoll}. Pointers and
 * {@code size_t} travel as {@code long} (LP64). Constants and struct layouts are in {@link LibCLayout}, checked
 * against the C headers by a test. Loaded on first use only: a TCP-only process never touches it.
 *
 * <p>{@code fcntl} is variadic in C; it is bound here with its one {@code int} argument, which on x86-64 is passed
 * exactly as a non-variadic call passes it (the only difference, the vector-register count in {@code al}, does not
 * matter to a callee that reads no floating-point argument). The memory pool (module memory-pool) keeps its own small
 * binding: the two modules may not depend on each other.
 */
public final class LibC
{
    private static final Throwable LOAD_FAILURE;

    static
    {
        Throwable failure = null;
        try
        {
            Native.register(LibC.class, NativeLibrary.getInstance("c"));
        }
        catch (final Throwable t)
        {
            failure = t;
        }
        LOAD_FAILURE = failure;
    }

    private LibC()
    {
    }

    /** True when libc was bound (it is on every Linux with glibc or musl). */
    public static boolean isLoaded()
    {
        return LOAD_FAILURE == null;
    }

    /** Why libc could not be bound, or {@code null}. */
    public static Throwable loadFailure()
    {
        return LOAD_FAILURE;
    }

    /** {@code int eventfd(unsigned int initval, int flags)} */
    public static native int eventfd(int initval, int flags);

    /** {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout)} */
    public static native int poll(long fds, long nfds, int timeoutMillis);

    /** {@code ssize_t read(int fd, void *buf, size_t count)} */
    public static native long read(int fd, long buf, long count);

    /** {@code ssize_t write(int fd, const void *buf, size_t count)} */
    public static native long write(int fd, long buf, long count);

    /** {@code int close(int fd)} */
    public static native int close(int fd);

    /** {@code int fcntl(int fd, int cmd, int arg)} */
    public static native int fcntl(int fd, int cmd, int arg);

    /** The calling thread's {@code errno} as JNA preserved it after the last native call. */
    public static native int memfd_create(String name, int flags);

    public static native int ftruncate(int fd, long length);

    public static native long mmap(long addr, long length, int prot, int flags, int fd, long offset);

    public static native int munmap(long addr, long length);

    public static native int open(String path, int flags);

    public static native int socket(int domain, int type, int protocol);

    public static native int bind(int fd, long addr, int addrlen);

    public static native int listen(int fd, int backlog);

    public static native int accept4(int fd, long addr, long addrlen, int flags);

    public static native int connect(int fd, long addr, int addrlen);

    public static native long sendmsg(int fd, long msghdr, int flags);

    public static native long recvmsg(int fd, long msghdr, int flags);

    public static native int epoll_create1(int flags);

    public static native int epoll_ctl(int epfd, int op, int fd, long event);

    public static native int epoll_wait(int epfd, long events, int maxevents, int timeout);

    public static int errno()
    {
        return Native.getLastError();
    }

    /** Make {@code fd} non-blocking ({@code O_NONBLOCK} added to its status flags); returns 0 or the errno. */
    public static int setNonBlocking(final int fd)
    {
        final int flags = fcntl(fd, LibCLayout.F_GETFL, 0);
        if (flags < 0)
        {
            return errno();
        }
        if ((flags & LibCLayout.O_NONBLOCK) != 0)
        {
            return 0;
        }
        return fcntl(fd, LibCLayout.F_SETFL, flags | LibCLayout.O_NONBLOCK) < 0 ? errno() : 0;
    }
}
