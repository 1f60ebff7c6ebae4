package io.rdmakv.transport.shm;

import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.libc.LibCLayout;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A non-blocking Unix domain {@code SOCK_SEQPACKET} socket in the abstract namespace: connection-oriented, message
 * boundaries kept, end-of-file when the peer process closes it or dies. It carries the shm transport's control
 * messages and the file descriptors of shared mappings ({@code SCM_RIGHTS}); data never passes through it.
 *
 * <pre>
 *   native scratch block (one per socket, so one thread at a time):
 *   0    struct msghdr   (56 B: name, namelen, iov, iovlen, control, controllen, flags)
 *   64   struct iovec    (16 B: base, len)
 *   96   control         (cmsghdr 16 B + up to MAX_FDS x 4 B)
 *   160  sockaddr_un     (110 B: family u16, '\0' + name)
 *   512  payload         (MAX_MESSAGE bytes)
 * </pre>
 * Not thread-safe: the shm worker's progress thread owns each socket.
 */
final class UnixSeqPacket implements AutoCloseable
{
    static final int MAX_MESSAGE = 1024;
    static final int MAX_FDS = 4;
    private static final int MSGHDR = 0;
    private static final int IOVEC = 64;
    private static final int CONTROL = 96;
    private static final int SOCKADDR = 160;
    private static final int PAYLOAD = 512;
    private static final int CMSG_HEADER = 16;
    private static final int SOCKADDR_PATH_OFFSET = 2;
    private static final int SOCKADDR_PATH_MAX = 108;
    /** Returned by {@link #receive} when nothing is waiting. */
    static final int WOULD_BLOCK = -1;
    /** Returned by {@link #receive} once the peer closed or died. */
    static final int END_OF_STREAM = -2;

    private final int fd;
    private final ByteBuffer scratchMemory = BufferUtil.allocateDirectAligned(PAYLOAD + MAX_MESSAGE, 64)
        .order(ByteOrder.nativeOrder());
    private final UnsafeBuffer scratch = new UnsafeBuffer(scratchMemory);
    private final int[] receivedFds = new int[MAX_FDS];
    private int receivedFdCount;
    private boolean closed;

    private UnixSeqPacket(final int fd)
    {
        this.fd = fd;
    }

    /** Listen on {@code name} in the abstract namespace; null when the name is taken. */
    static UnixSeqPacket listen(final String name)
    {
        final UnixSeqPacket s = new UnixSeqPacket(newSocket());
        final int len = s.putAddress(name);
        if (LibC.bind(s.fd, s.scratch.addressOffset() + SOCKADDR, len) != 0)
        {
            final int errno = LibC.errno();
            s.close();
            if (errno == LibCLayout.EADDRINUSE)
            {
                return null;
            }
            throw new TransportException("shm: bind(@" + name + ") failed, errno " + errno);
        }
        if (LibC.listen(s.fd, 512) != 0)
        {
            final int errno = LibC.errno();
            s.close();
            throw new TransportException("shm: listen(@" + name + ") failed, errno " + errno);
        }
        return s;
    }

    /**
     * Connect to {@code name}; a Unix socket connects at once or fails at once.
     *
     * @throws TransportException with the reason when nothing listens there.
     */
    static UnixSeqPacket connect(final String name)
    {
        final UnixSeqPacket s = new UnixSeqPacket(newSocket());
        final int len = s.putAddress(name);
        if (LibC.connect(s.fd, s.scratch.addressOffset() + SOCKADDR, len) != 0)
        {
            final int errno = LibC.errno();
            s.close();
            throw new TransportException(errno == LibCLayout.ECONNREFUSED ?
                "shm: nothing listens on @" + name + " on this host" :
                "shm: connect(@" + name + ") failed, errno " + errno);
        }
        return s;
    }

    /** A pending connection, or null when none waits. */
    UnixSeqPacket accept()
    {
        final int child = LibC.accept4(fd, 0, 0, LibCLayout.SOCK_NONBLOCK | LibCLayout.SOCK_CLOEXEC);
        if (child < 0)
        {
            final int errno = LibC.errno();
            if (errno == LibCLayout.EAGAIN || errno == LibCLayout.EINTR)
            {
                return null;
            }
            throw new TransportException("shm: accept failed, errno " + errno);
        }
        return new UnixSeqPacket(child);
    }

    int fd()
    {
        return fd;
    }

    /** The payload area: write a message here, then {@link #send}. */
    UnsafeBuffer payload()
    {
        return scratch;
    }

    /** Offset of the payload area within {@link #payload()}. */
    static int payloadOffset()
    {
        return PAYLOAD;
    }

    /**
     * Send {@code length} payload bytes with {@code fds} attached; false when the socket's buffer is full or the peer
     * is gone (the caller fails the connection).
     */
    boolean send(final int length, final int... fds)
    {
        final long base = scratch.addressOffset();
        scratch.setMemory(MSGHDR, 64, (byte)0);
        scratch.putLong(IOVEC, base + PAYLOAD);
        scratch.putLong(IOVEC + 8, length);
        scratch.putLong(MSGHDR + 16, base + IOVEC);
        scratch.putLong(MSGHDR + 24, 1);
        if (fds.length > 0)
        {
            final int cmsgLen = CMSG_HEADER + 4 * fds.length;
            scratch.putLong(CONTROL, cmsgLen);
            scratch.putInt(CONTROL + 8, LibCLayout.SOL_SOCKET);
            scratch.putInt(CONTROL + 12, LibCLayout.SCM_RIGHTS);
            for (int i = 0; i < fds.length; i++)
            {
                scratch.putInt(CONTROL + CMSG_HEADER + 4 * i, fds[i]);
            }
            scratch.putLong(MSGHDR + 32, base + CONTROL);
            scratch.putLong(MSGHDR + 40, align8(cmsgLen));
        }
        final long sent = LibC.sendmsg(fd, base + MSGHDR, LibCLayout.MSG_DONTWAIT | LibCLayout.MSG_NOSIGNAL);
        return sent == length;
    }

    /**
     * Receive one message into the payload area: its length, {@link #WOULD_BLOCK} or {@link #END_OF_STREAM}. File
     * descriptors that came with it are in {@link #receivedFd(int)}; the receiver owns them.
     */
    int receive()
    {
        final long base = scratch.addressOffset();
        scratch.setMemory(MSGHDR, 64, (byte)0);
        scratch.putLong(IOVEC, base + PAYLOAD);
        scratch.putLong(IOVEC + 8, MAX_MESSAGE);
        scratch.putLong(MSGHDR + 16, base + IOVEC);
        scratch.putLong(MSGHDR + 24, 1);
        scratch.putLong(MSGHDR + 32, base + CONTROL);
        scratch.putLong(MSGHDR + 40, align8(CMSG_HEADER + 4 * MAX_FDS));
        receivedFdCount = 0;
        final long n = LibC.recvmsg(fd, base + MSGHDR, LibCLayout.MSG_DONTWAIT | LibCLayout.MSG_CMSG_CLOEXEC);
        if (n < 0)
        {
            final int errno = LibC.errno();
            return errno == LibCLayout.EAGAIN || errno == LibCLayout.EINTR ? WOULD_BLOCK : END_OF_STREAM;
        }
        final long controlLen = scratch.getLong(MSGHDR + 40);
        if (controlLen >= CMSG_HEADER && scratch.getInt(CONTROL + 8) == LibCLayout.SOL_SOCKET &&
            scratch.getInt(CONTROL + 12) == LibCLayout.SCM_RIGHTS)
        {
            final int count = (int)((scratch.getLong(CONTROL) - CMSG_HEADER) / 4);
            for (int i = 0; i < count && i < MAX_FDS; i++)
            {
                receivedFds[receivedFdCount++] = scratch.getInt(CONTROL + CMSG_HEADER + 4 * i);
            }
        }
        return n == 0 ? END_OF_STREAM : (int)n;
    }

    int receivedFdCount()
    {
        return receivedFdCount;
    }

    int receivedFd(final int index)
    {
        return receivedFds[index];
    }

    /** The receiver took ownership of the descriptors received with the last message. */
    void forgetReceivedFds()
    {
        receivedFdCount = 0;
    }

    /** Close every descriptor received with the last message (a message that carried unexpected ones). */
    void closeReceivedFds()
    {
        for (int i = 0; i < receivedFdCount; i++)
        {
            LibC.close(receivedFds[i]);
        }
        receivedFdCount = 0;
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            LibC.close(fd);
        }
    }

    private static int newSocket()
    {
        final int fd = LibC.socket(LibCLayout.AF_UNIX,
            LibCLayout.SOCK_SEQPACKET | LibCLayout.SOCK_NONBLOCK | LibCLayout.SOCK_CLOEXEC, 0);
        if (fd < 0)
        {
            throw new TransportException("shm: socket(AF_UNIX, SOCK_SEQPACKET) failed, errno " + LibC.errno());
        }
        return fd;
    }

    /** Abstract-namespace address: a leading NUL, then the name (no trailing NUL); returns the address length. */
    private int putAddress(final String name)
    {
        final byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length + 1 > SOCKADDR_PATH_MAX)
        {
            throw new IllegalArgumentException("socket name too long: " + name);
        }
        scratch.setMemory(SOCKADDR, 2 + SOCKADDR_PATH_MAX, (byte)0);
        scratch.putShort(SOCKADDR, (short)LibCLayout.AF_UNIX);
        scratch.putBytes(SOCKADDR + SOCKADDR_PATH_OFFSET + 1, bytes);
        return SOCKADDR_PATH_OFFSET + 1 + bytes.length;
    }

    private static long align8(final long n)
    {
        return (n + 7) & ~7L;
    }
}
