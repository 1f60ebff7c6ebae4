package io.rdmakv.transport.event;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The few libc calls a sleeping progress thread needs, bound by JNA direct mapping (no native code is compiled by the
 * build): {@code eventfd}, {@code poll}, {@code read}, {@code write}, {@code close} and {@code fcntl}. Pointers and
 * {@code size_t} travel as {@code long} (LP64). Constants and the {@code struct pollfd} layout are in
 * {@link LibCLayout}, checked against the C headers by a test.
 *
 * <p>{@code fcntl} is variadic in C; it is bound here with its one {@code int} argument, which on x86-64 is passed
 * exactly as a non-variadic call passes it (the only difference, the vector-register count in {@code al}, does not
 * matter to a callee that reads no floating-point argument).
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
