package io.rdmakv.transport.libc;

/**
 * The libc calls of the data path: the eventfd writes and reads that wake a worker (package {@code event}, shm's
 * producers) and the progress thread's {@code poll}/{@code epoll_wait}. Two bindings implement it: JNA ({@link LibC},
 * every JDK) and FFM ({@code java.lang.foreign}, JDK 22+, from the jar's {@code META-INF/versions/22}); which one a
 * process uses is decided once, by {@link NativeBindings#libc()}. Everything off the data path (creating descriptors,
 * mapping, sockets, closing) stays on {@link LibC}.
 *
 * <p>Pointers and {@code size_t} travel as {@code long} (LP64), as in {@link LibC}. Only {@link #poll} records
 * {@code errno}: {@link #errno()} is the value its last call on this thread left (the other calls' callers ignore
 * failures: a lost eventfd write cannot happen on a non-blocking eventfd whose counter is far from overflow, and a
 * failed non-blocking read means "nothing to read").
 */
public interface LibcCalls
{
    /** "FFM" or "JNA". */
    String name();

    /**
     * {@code write(fd, buf, 8)} on a non-blocking eventfd: adds the 8-byte counter at {@code buf}. Never blocks (the
     * descriptor is {@code EFD_NONBLOCK}), so the FFM binding makes it a critical call.
     */
    long eventfdWrite(int fd, long buf);

    /** {@code read(fd, buf, 8)} on a non-blocking eventfd: 8 when it was signalled (and resets it), -1 otherwise. */
    long eventfdRead(int fd, long buf);

    /** {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout)}: blocks; sets {@link #errno()}. */
    int poll(long fds, long nfds, int timeoutMillis);

    /** {@code epoll_wait(epfd, events, maxevents, 0)}: the ready list without waiting (critical on FFM). */
    int epollWaitNow(int epfd, long events, int maxEvents);

    /** The {@code errno} the last {@link #poll} on this thread left. */
    int errno();
}
