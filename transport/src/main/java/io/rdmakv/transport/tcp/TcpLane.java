package io.rdmakv.transport.tcp;

import io.rdmakv.transport.Lane;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The TCP transport's {@link Lane}: a socket of its own, in the transport's frame format ({@link TcpFrames}, MESSAGE
 * frames only), that the calling thread writes and reads itself. The socket is non-blocking with a selector of its
 * own, so a receive waits in {@code epoll_wait} with the caller's timeout and is woken by the kernel when the answer
 * lands: per request a {@code write}, the wait and the {@code read} of the answer (a blocking client such as Jedis,
 * with its socket timeout, also tries a {@code read} before it waits: one more system call, which finds nothing when
 * the answer is a round trip away).
 *
 * <p>Buffers start at {@value #INITIAL_BUFFER_BYTES} bytes and grow to the largest frame seen, at most the
 * transport's message limit; a frame announcing more is a protocol error and closes the lane.
 */
final class TcpLane implements Lane
{
    static final int INITIAL_BUFFER_BYTES = 16 * 1024;

    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final InetSocketAddress remoteAddress;
    private final int maxMessageBytes;
    private ByteBuffer out;
    private ByteBuffer in;
    private final UnsafeBuffer inView = new UnsafeBuffer(0, 0);
    private boolean closed;

    private TcpLane(final SocketChannel channel, final Selector selector, final InetSocketAddress remoteAddress,
        final int maxMessageBytes) throws IOException
    {
        this.channel = channel;
        this.selector = selector;
        this.remoteAddress = remoteAddress;
        this.maxMessageBytes = maxMessageBytes;
        this.key = channel.register(selector, SelectionKey.OP_READ);
        this.out = allocate(INITIAL_BUFFER_BYTES);
        this.in = allocate(INITIAL_BUFFER_BYTES);
        inView.wrap(in);
    }

    /** Connect, blocking up to {@code timeout}. */
    static TcpLane open(final InetSocketAddress remoteAddress, final Duration timeout, final int maxMessageBytes)
    {
        SocketChannel channel = null;
        Selector selector = null;
        try
        {
            channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.socket().connect(remoteAddress, (int)Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
            channel.configureBlocking(false);
            selector = Selector.open();
            return new TcpLane(channel, selector, remoteAddress, maxMessageBytes);
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(channel);
            closeQuietly(selector);
            throw new TransportException(TransportStatus.PEER_FAILED, "tcp: cannot open a lane to " + remoteAddress +
                " within " + timeout + ": " + ex.getMessage(), ex);
        }
    }

    @Override
    public void send(final DirectBuffer buffer, final int offset, final int length, final long timeoutNanos)
    {
        ensureOpen();
        if (length < 0 || length > maxMessageBytes)
        {
            throw new TransportException(TransportStatus.MESSAGE_TOO_LARGE, "tcp: a message of " + length +
                " bytes exceeds the lane's limit of " + maxMessageBytes, null);
        }
        final int frame = TcpFrames.MESSAGE_OVERHEAD + length;
        if (out.capacity() < frame)
        {
            out = allocate(frame);
        }
        out.clear();
        out.putInt(TcpFrames.TYPE_LENGTH + length).put(TcpFrames.TYPE_MESSAGE);
        buffer.getBytes(offset, out, TcpFrames.MESSAGE_OVERHEAD, length);
        out.position(frame).flip();
        final long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        try
        {
            while (out.hasRemaining())
            {
                if (channel.write(out) == 0)
                {
                    // The socket's send buffer is full: wait until it drains (the peer reads), not past the deadline.
                    final long remaining = deadline - System.nanoTime();
                    if (remaining <= 0)
                    {
                        throw fail(TransportStatus.TIMED_OUT, remoteAddress + " took no more of a " + length +
                            "-byte message within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms", null);
                    }
                    key.interestOps(SelectionKey.OP_WRITE);
                    selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining + 999_999)));
                    selector.selectedKeys().clear();
                    key.interestOps(SelectionKey.OP_READ);
                }
            }
        }
        catch (final IOException ex)
        {
            throw fail("cannot write to " + remoteAddress + ": " + ex.getMessage(), ex);
        }
    }

    @Override
    public boolean receive(final MessageHandler handler, final long timeoutNanos)
    {
        ensureOpen();
        final long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        try
        {
            // A caller receives right after it sent: its answer is a round trip away, so the first read would find
            // nothing. Wait first, then read; a read that returns bytes is followed by another (more may be there).
            boolean readable = false;
            while (true)
            {
                if (deliverFrame(handler))
                {
                    return true;
                }
                if (readable)
                {
                    final int n = channel.read(in);
                    if (n < 0)
                    {
                        throw fail(remoteAddress + " closed the connection", null);
                    }
                    if (n > 0)
                    {
                        continue;
                    }
                }
                final long remaining = deadline - System.nanoTime();
                if (remaining <= 0)
                {
                    return false;
                }
                readable = selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining + 999_999))) > 0;
                selector.selectedKeys().clear();
            }
        }
        catch (final IOException ex)
        {
            throw fail("cannot read from " + remoteAddress + ": " + ex.getMessage(), ex);
        }
    }

    /** Hand over the first whole frame in {@code in}, if there is one; grows {@code in} for a larger frame. */
    private boolean deliverFrame(final MessageHandler handler)
    {
        final int filled = in.position();
        if (filled < TcpFrames.LENGTH_FIELD_LENGTH)
        {
            return false;
        }
        final int frameLength = in.getInt(0);
        if (frameLength < TcpFrames.TYPE_LENGTH || frameLength > TcpFrames.TYPE_LENGTH + maxMessageBytes)
        {
            throw fail(remoteAddress + " sent a frame of " + frameLength + " bytes (a lane takes messages of at most " +
                maxMessageBytes + ")", null);
        }
        final int whole = TcpFrames.LENGTH_FIELD_LENGTH + frameLength;
        if (filled < whole)
        {
            if (in.capacity() < whole)
            {
                final ByteBuffer larger = allocate(whole);
                in.flip();
                larger.put(in);
                in = larger;
                inView.wrap(in);
            }
            return false;
        }
        final byte type = in.get(TcpFrames.LENGTH_FIELD_LENGTH);
        if (type != TcpFrames.TYPE_MESSAGE)
        {
            throw fail(remoteAddress + " sent a frame of type " + type + " on a lane (messages only)", null);
        }
        handler.onMessage(inView, TcpFrames.MESSAGE_OVERHEAD, frameLength - TcpFrames.TYPE_LENGTH);
        if (filled == whole)
        {
            in.clear();
        }
        else
        {
            in.flip().position(whole);
            in.compact();
        }
        return true;
    }

    @Override
    public boolean isClosed()
    {
        return closed;
    }

    @Override
    public InetSocketAddress remoteAddress()
    {
        return remoteAddress;
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            closeQuietly(selector);
            closeQuietly(channel);
        }
    }

    @Override
    public String toString()
    {
        return "TcpLane{" + remoteAddress + (closed ? ", closed" : "") + "}";
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new TransportException(TransportStatus.CLOSED, "tcp: the lane to " + remoteAddress + " is closed",
                null);
        }
    }

    private TransportException fail(final String what, final Throwable cause)
    {
        return fail(TransportStatus.PEER_FAILED, what, cause);
    }

    private TransportException fail(final TransportStatus status, final String what, final Throwable cause)
    {
        close();
        return new TransportException(status, "tcp lane: " + what, cause);
    }

    private static ByteBuffer allocate(final int bytes)
    {
        return BufferUtil.allocateDirectAligned(org.agrona.BitUtil.align(Math.max(bytes, 64), 64), 64)
            .order(ByteOrder.BIG_ENDIAN);
    }

    private static void closeQuietly(final AutoCloseable c)
    {
        if (c != null)
        {
            try
            {
                c.close();
            }
            catch (final Exception ignored)
            {
                // closing: nothing to report
            }
        }
    }
}
