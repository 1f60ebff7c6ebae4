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
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * The TCP transport's {@link Lane}: a socket of its own, in the transport's frame format ({@link TcpFrames}, MESSAGE
 * frames only), that the calling thread writes and reads itself. The socket blocks: per request the caller's thread
 * makes a {@code write} and a {@code read} that sleeps in the kernel until the answer lands (a client with a socket
 * timeout, such as Jedis, also polls: a {@code read} that finds nothing, {@code poll}, the {@code read}). The
 * deadlines are kept by the {@link LaneWatchdog}: a call still blocked at its deadline has its lane closed under it
 * (a write cut short leaves part of a message on the socket, and an answer after the deadline would be read as the
 * next request's: the lane cannot be used again either way).
 *
 * <p>Buffers start at {@value #INITIAL_BUFFER_BYTES} bytes and grow to the largest frame seen, at most the
 * transport's message limit; a frame announcing more is a protocol error and closes the lane.
 */
final class TcpLane implements Lane
{
    static final int INITIAL_BUFFER_BYTES = 16 * 1024;
    /** {@link #armedDeadline()} of a lane that is not blocked in a call. */
    static final long DISARMED = Long.MIN_VALUE;

    private static final AtomicLongFieldUpdater<TcpLane> DEADLINE =
        AtomicLongFieldUpdater.newUpdater(TcpLane.class, "deadlineNanos");

    private final SocketChannel channel;
    private final InetSocketAddress remoteAddress;
    private final int maxMessageBytes;
    private final LaneWatchdog watchdog;
    private ByteBuffer out;
    private ByteBuffer in;
    private final UnsafeBuffer inView = new UnsafeBuffer(0, 0);
    /** The deadline of the call blocked now ({@link System#nanoTime()}), or {@link #DISARMED}. */
    private volatile long deadlineNanos = DISARMED;
    private volatile boolean expired;
    private volatile boolean closed;

    private TcpLane(final SocketChannel channel, final InetSocketAddress remoteAddress, final int maxMessageBytes,
        final LaneWatchdog watchdog)
    {
        this.channel = channel;
        this.remoteAddress = remoteAddress;
        this.maxMessageBytes = maxMessageBytes;
        this.watchdog = watchdog;
        this.out = allocate(INITIAL_BUFFER_BYTES);
        this.in = allocate(INITIAL_BUFFER_BYTES);
        inView.wrap(in);
        watchdog.watch(this);
    }

    /** Connect, blocking up to {@code timeout}. */
    static TcpLane open(final InetSocketAddress remoteAddress, final Duration timeout, final int maxMessageBytes)
    {
        SocketChannel channel = null;
        try
        {
            channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.socket().connect(remoteAddress, (int)Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
            return new TcpLane(channel, remoteAddress, maxMessageBytes, LaneWatchdog.INSTANCE);
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(channel);
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
        arm(timeoutNanos);
        try
        {
            while (out.hasRemaining())
            {
                channel.write(out);
            }
        }
        catch (final IOException ex)
        {
            if (disarm())
            {
                throw fail("cannot write to " + remoteAddress + ": " + ex.getMessage(), ex);
            }
            throw fail(TransportStatus.TIMED_OUT, remoteAddress + " took no more of a " + length +
                "-byte message within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms", null);
        }
        if (!disarm())
        {
            // Written, but the watchdog closed the lane at the deadline meanwhile: the message may not have left.
            throw fail(TransportStatus.TIMED_OUT, "the lane to " + remoteAddress + " was closed at the send's " +
                "deadline", null);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>A timeout closes the lane (see the class comment). {@code timeoutNanos <= 0} hands over a message already
     * read, without reading.
     */
    @Override
    public boolean receive(final MessageHandler handler, final long timeoutNanos)
    {
        ensureOpen();
        if (deliverFrame(handler))
        {
            return true;
        }
        if (timeoutNanos <= 0)
        {
            return false;
        }
        arm(timeoutNanos);
        try
        {
            do
            {
                if (channel.read(in) < 0)
                {
                    disarm();
                    throw fail(remoteAddress + " closed the connection", null);
                }
            }
            while (!deliverFrame(handler));
        }
        catch (final IOException ex)
        {
            if (disarm())
            {
                throw fail("cannot read from " + remoteAddress + ": " + ex.getMessage(), ex);
            }
            close();
            return false; // the watchdog closed the lane at the deadline
        }
        disarm(); // the answer came in time; if the watchdog closed the lane at that moment, the next call says so
        return true;
    }

    /** The deadline of the call blocked now, or {@link #DISARMED} (the watchdog reads it). */
    long armedDeadline()
    {
        return deadlineNanos;
    }

    /** The watchdog: the call armed with {@code deadline} is still blocked past it; close the lane under it. */
    void expire(final long deadline)
    {
        if (DEADLINE.compareAndSet(this, deadline, DISARMED))
        {
            expired = true;
            close();
        }
    }

    private void arm(final long timeoutNanos)
    {
        long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        if (deadline == DISARMED)
        {
            deadline++;
        }
        deadlineNanos = deadline;
        watchdog.armed(deadline);
    }

    /** True when the call ended before the watchdog expired it. */
    private boolean disarm()
    {
        final long deadline = deadlineNanos;
        return deadline != DISARMED && DEADLINE.compareAndSet(this, deadline, DISARMED);
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

    /** Thread-safe: closing from another thread ends a call blocked in it (the client's close, the watchdog). */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            watchdog.forget(this);
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
            throw new TransportException(TransportStatus.CLOSED, "tcp: the lane to " + remoteAddress + " is closed" +
                (expired ? " (a call on it passed its deadline)" : ""), null);
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
