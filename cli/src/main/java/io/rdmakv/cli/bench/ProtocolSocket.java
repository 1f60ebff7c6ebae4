package io.rdmakv.cli.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A TCP connection for the text-framed protocols (RESP, memcached): buffered writes sent by {@link #flush()} (so a
 * pipeline leaves in one write), CRLF lines and exact-length reads from a buffered input. Every failure, including
 * the read timeout, becomes a {@link BenchException} naming the peer.
 */
final class ProtocolSocket implements AutoCloseable
{
    private static final int BUFFER = 64 * 1024;

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final String peer;
    private byte[] line = new byte[256];
    private int lineLength;
    private final byte[] digits = new byte[20];

    ProtocolSocket(final InetSocketAddress address, final Duration timeout)
    {
        this.peer = address.getHostString() + ":" + address.getPort();
        try
        {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            // HostPort hands out unresolved addresses; resolve here, where a failure is reported with the peer.
            final InetSocketAddress resolved = address.isUnresolved() ?
                new InetSocketAddress(address.getHostString(), address.getPort()) : address;
            socket.connect(resolved, (int)Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            out = new BufferedOutputStream(socket.getOutputStream(), BUFFER);
            in = new BufferedInputStream(socket.getInputStream(), BUFFER);
        }
        catch (final IOException ex)
        {
            throw new BenchException("cannot connect to " + peer + ": " + ex, ex);
        }
    }

    void write(final byte[] bytes)
    {
        try
        {
            out.write(bytes);
        }
        catch (final IOException ex)
        {
            throw failed("write", ex);
        }
    }

    void write(final byte b)
    {
        try
        {
            out.write(b);
        }
        catch (final IOException ex)
        {
            throw failed("write", ex);
        }
    }

    /** Write a non-negative number in decimal ASCII. */
    void writeDecimal(final long value)
    {
        long v = value;
        int i = digits.length;
        do
        {
            digits[--i] = (byte)('0' + v % 10);
            v /= 10;
        }
        while (v != 0);
        try
        {
            out.write(digits, i, digits.length - i);
        }
        catch (final IOException ex)
        {
            throw failed("write", ex);
        }
    }

    void crlf()
    {
        write((byte)'\r');
        write((byte)'\n');
    }

    void flush()
    {
        try
        {
            out.flush();
        }
        catch (final IOException ex)
        {
            throw failed("write", ex);
        }
    }

    /** Read one line up to CRLF (excluded); its bytes are {@link #line()} [0, {@link #lineLength()}). */
    void readLine()
    {
        lineLength = 0;
        try
        {
            while (true)
            {
                final int b = in.read();
                if (b < 0)
                {
                    throw new BenchException(peer + " closed the connection");
                }
                if (b == '\n' && lineLength > 0 && line[lineLength - 1] == '\r')
                {
                    lineLength--;
                    return;
                }
                if (lineLength == line.length)
                {
                    if (line.length >= 1 << 20)
                    {
                        throw new BenchException(peer + " sent a line longer than 1 MiB");
                    }
                    line = java.util.Arrays.copyOf(line, line.length * 2);
                }
                line[lineLength++] = (byte)b;
            }
        }
        catch (final IOException ex)
        {
            throw failed("read", ex);
        }
    }

    /** Skip exactly {@code count} bytes. */
    void skip(final long count)
    {
        long left = count;
        try
        {
            while (left > 0)
            {
                final long n = in.skip(left);
                if (n <= 0)
                {
                    if (in.read() < 0)
                    {
                        throw new BenchException(peer + " closed the connection");
                    }
                    left--;
                }
                else
                {
                    left -= n;
                }
            }
        }
        catch (final IOException ex)
        {
            throw failed("read", ex);
        }
    }

    byte[] line()
    {
        return line;
    }

    int lineLength()
    {
        return lineLength;
    }

    String lineText()
    {
        return new String(line, 0, lineLength, StandardCharsets.US_ASCII);
    }

    boolean lineEquals(final byte[] expected)
    {
        if (lineLength != expected.length)
        {
            return false;
        }
        for (int i = 0; i < lineLength; i++)
        {
            if (line[i] != expected[i])
            {
                return false;
            }
        }
        return true;
    }

    /** The decimal number in the line from {@code from} to the next space or the end; -1 if there is none. */
    long parseDecimal(final int from)
    {
        long value = 0;
        int i = from;
        boolean negative = false;
        if (i < lineLength && line[i] == '-')
        {
            negative = true;
            i++;
        }
        final int start = i;
        while (i < lineLength && line[i] != ' ')
        {
            final int d = line[i] - '0';
            if (d < 0 || d > 9)
            {
                throw new BenchException(peer + " sent a malformed number in '" + lineText() + "'");
            }
            value = value * 10 + d;
            i++;
        }
        if (i == start)
        {
            throw new BenchException(peer + " sent no number in '" + lineText() + "'");
        }
        return negative ? -value : value;
    }

    String peer()
    {
        return peer;
    }

    private BenchException failed(final String op, final IOException ex)
    {
        if (ex instanceof SocketTimeoutException)
        {
            return new BenchException(peer + " did not answer within the timeout", ex);
        }
        return new BenchException(op + " to " + peer + " failed: " + ex.getMessage(), ex);
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
            // closing: nothing to do
        }
    }
}
