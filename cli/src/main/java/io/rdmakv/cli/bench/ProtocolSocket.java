package io.rdmakv.cli.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A TCP connection for the text-framed protocols (RESP, memcached): writes gather in a buffer of its own that
 * {@link #flush()} sends in one {@code write} (so a pipeline leaves in one system call), and reads fill a buffer of
 * its own with as many bytes as the kernel has, from which CRLF lines and exact-length bodies are taken. No
 * {@code Buffered*Stream}: their methods lock per call, which per byte of a line costs more than the parsing. Used by
 * one thread. Every failure, including the read timeout, becomes a {@link BenchException} naming the peer.
 */
final class ProtocolSocket implements AutoCloseable
{
    private static final int BUFFER = 64 * 1024;

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final String peer;
    private final byte[] outBuffer = new byte[BUFFER];
    private int outLength;
    private final byte[] inBuffer = new byte[BUFFER];
    private int inPosition;
    private int inLimit;
    private byte[] line = new byte[256];
    private int lineLength;
    private long reads;
    private long writes;

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
            out = socket.getOutputStream();
            in = socket.getInputStream();
        }
        catch (final IOException ex)
        {
            throw new BenchException("cannot connect to " + peer + ": " + ex, ex);
        }
    }

    void write(final byte[] bytes)
    {
        if (bytes.length > outBuffer.length - outLength)
        {
            flush();
            if (bytes.length > outBuffer.length)
            {
                send(bytes, bytes.length);
                return;
            }
        }
        System.arraycopy(bytes, 0, outBuffer, outLength, bytes.length);
        outLength += bytes.length;
    }

    void write(final byte b)
    {
        if (outLength == outBuffer.length)
        {
            flush();
        }
        outBuffer[outLength++] = b;
    }

    /** Write a non-negative number in decimal ASCII. */
    void writeDecimal(final long value)
    {
        if (outBuffer.length - outLength < 20)
        {
            flush();
        }
        int digits = 1;
        for (long v = value / 10; v != 0; v /= 10)
        {
            digits++;
        }
        long v = value;
        for (int i = outLength + digits - 1; i >= outLength; i--)
        {
            outBuffer[i] = (byte)('0' + v % 10);
            v /= 10;
        }
        outLength += digits;
    }

    void crlf()
    {
        if (outBuffer.length - outLength < 2)
        {
            flush();
        }
        outBuffer[outLength++] = '\r';
        outBuffer[outLength++] = '\n';
    }

    /** Send what is buffered, in one write. */
    void flush()
    {
        if (outLength > 0)
        {
            send(outBuffer, outLength);
            outLength = 0;
        }
    }

    private void send(final byte[] bytes, final int length)
    {
        try
        {
            out.write(bytes, 0, length);
            writes++;
        }
        catch (final IOException ex)
        {
            throw failed("write", ex);
        }
    }

    /** Read what the kernel has (at least one byte) into the empty input buffer. */
    private void fill()
    {
        try
        {
            final int n = in.read(inBuffer, 0, inBuffer.length);
            if (n < 0)
            {
                throw new BenchException(peer + " closed the connection");
            }
            reads++;
            inPosition = 0;
            inLimit = n;
        }
        catch (final IOException ex)
        {
            throw failed("read", ex);
        }
    }

    /** Read one line up to CRLF (excluded); its bytes are {@link #line()} [0, {@link #lineLength()}). */
    void readLine()
    {
        lineLength = 0;
        while (true)
        {
            if (inPosition == inLimit)
            {
                fill();
            }
            int i = inPosition;
            while (i < inLimit && inBuffer[i] != '\n')
            {
                i++;
            }
            final int n = i - inPosition;
            if (lineLength + n > line.length)
            {
                if (lineLength + n > 1 << 20)
                {
                    throw new BenchException(peer + " sent a line longer than 1 MiB");
                }
                line = java.util.Arrays.copyOf(line, Math.max(line.length * 2, lineLength + n));
            }
            System.arraycopy(inBuffer, inPosition, line, lineLength, n);
            lineLength += n;
            if (i < inLimit)
            {
                inPosition = i + 1;
                if (lineLength > 0 && line[lineLength - 1] == '\r')
                {
                    lineLength--;
                    return;
                }
                if (lineLength == line.length)
                {
                    line = java.util.Arrays.copyOf(line, line.length * 2);
                }
                line[lineLength++] = '\n';
            }
            else
            {
                inPosition = inLimit;
            }
        }
    }

    /** Skip exactly {@code count} bytes. */
    void skip(final long count)
    {
        long left = count;
        while (left > 0)
        {
            if (inPosition == inLimit)
            {
                fill();
            }
            final int n = (int)Math.min(left, inLimit - inPosition);
            inPosition += n;
            left -= n;
        }
    }

    /** Reads (system calls) that returned data so far. */
    long reads()
    {
        return reads;
    }

    /** Writes (system calls) so far. */
    long writes()
    {
        return writes;
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
