package io.rdmakv.it.support;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * A plain TCP socket for feeding a server bytes no well-behaved client would send, and for observing exactly how the
 * server reacts: an answer, or the connection closed (EOF or reset), within a deadline.
 */
public final class RawConnection implements AutoCloseable
{
    /** What the server did with the connection. */
    public enum Outcome
    {
        /** EOF or connection reset: the server closed the connection. */
        CLOSED,
        /** Nothing happened within the deadline: the connection is still open and silent. */
        STILL_OPEN
    }

    private final Socket socket;
    private final InputStream in;
    private long discarded;

    private RawConnection(final Socket socket) throws IOException
    {
        this.socket = socket;
        this.in = socket.getInputStream();
    }

    public static RawConnection open(final InetSocketAddress address)
    {
        try
        {
            final Socket socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(address, 5_000);
            return new RawConnection(socket);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot connect to " + address, ex);
        }
    }

    /** A connection from the loopback source address {@code source} (any of 127.0.0.0/8 is this host). */
    public static RawConnection openFrom(final String source, final InetSocketAddress address)
    {
        try
        {
            final Socket socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.bind(new InetSocketAddress(source, 0));
            socket.connect(address, 5_000);
            return new RawConnection(socket);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot connect from " + source + " to " + address, ex);
        }
    }

    public RawConnection send(final byte[] bytes)
    {
        try
        {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            return this;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("send of " + bytes.length + " bytes failed", ex);
        }
    }

    /**
     * Send, tolerating that the server may already have closed the connection (it is allowed to stop reading
     * garbage early); returns whether every byte was accepted by the local socket.
     */
    public boolean sendQuietly(final byte[] bytes)
    {
        try
        {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /** Half-close: the server sees EOF after what was sent (a truncated frame stays truncated for good). */
    public RawConnection shutdownOutput()
    {
        try
        {
            socket.shutdownOutput();
            return this;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** Read exactly {@code n} bytes within {@code timeout}. */
    public byte[] readExactly(final int n, final Duration timeout) throws IOException
    {
        socket.setSoTimeout((int)Math.max(1, timeout.toMillis()));
        final byte[] bytes = new byte[n];
        int read = 0;
        while (read < n)
        {
            final int r = in.read(bytes, read, n - read);
            if (r < 0)
            {
                throw new EOFException("connection closed after " + read + " of " + n + " bytes");
            }
            read += r;
        }
        return bytes;
    }

    /**
     * Wait up to {@code timeout} for the server to close the connection, discarding whatever it sends before.
     *
     * @return {@link Outcome#CLOSED} on EOF or reset, {@link Outcome#STILL_OPEN} when the deadline passed.
     */
    public Outcome awaitClose(final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final byte[] sink = new byte[4096];
        try
        {
            while (true)
            {
                final long leftMs = (deadline - System.nanoTime()) / 1_000_000;
                if (leftMs <= 0)
                {
                    return Outcome.STILL_OPEN;
                }
                socket.setSoTimeout((int)leftMs);
                final int n = in.read(sink);
                if (n < 0)
                {
                    return Outcome.CLOSED;
                }
                discarded += n;
            }
        }
        catch (final SocketTimeoutException ex)
        {
            return Outcome.STILL_OPEN;
        }
        catch (final SocketException ex)
        {
            return Outcome.CLOSED; // reset by peer
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** Bytes the server sent that {@link #awaitClose} discarded: 0 means it closed without answering. */
    public long discardedBytes()
    {
        return discarded;
    }

    @Override
    public void close()
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignore)
        {
            // Closing a test socket: nothing to recover.
        }
    }
}
