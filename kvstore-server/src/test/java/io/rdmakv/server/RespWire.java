package io.rdmakv.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A RESP connection for tests, on a plain socket: commands written as arrays of bulk strings (or any raw bytes),
 * replies read back as Java values. Reply types: simple string and bulk as {@code String}, error as {@link Err},
 * integer as {@code Long}, null as {@link #NIL}, array as {@code List}, RESP3 map as {@code Map}.
 */
final class RespWire implements AutoCloseable
{
    /** A null reply ({@code $-1}, {@code *-1} or RESP3 {@code _}). */
    static final Object NIL = new Object()
    {
        @Override
        public String toString()
        {
            return "(nil)";
        }
    };

    /** An error reply. */
    record Err(String text)
    {
    }

    /** What a RESP3 null looked like on the wire (to tell {@code _} from {@code $-1}). */
    char lastNullType;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RespWire(final InetSocketAddress address) throws IOException
    {
        socket = new Socket(address.getAddress(), address.getPort());
        socket.setSoTimeout(30_000);
        socket.setTcpNoDelay(true);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** The command as RESP (an array of bulk strings). */
    static byte[] encode(final String... args)
    {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (final String a : args)
        {
            final byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
            b.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(bytes);
            b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return b.toByteArray();
    }

    /** Send one command and read its reply. */
    Object call(final String... args) throws IOException
    {
        send(encode(args));
        return read();
    }

    void send(final byte[] bytes) throws IOException
    {
        out.write(bytes);
        out.flush();
    }

    Object read() throws IOException
    {
        final int type = in.read();
        if (type < 0)
        {
            throw new EOFException("connection closed by the node");
        }
        final String line = line();
        switch (type)
        {
            case '+':
                return line;
            case '-':
                return new Err(line);
            case ':':
                return Long.parseLong(line);
            case '_':
                lastNullType = '_';
                return NIL;
            case '$':
            {
                final int n = Integer.parseInt(line);
                if (n < 0)
                {
                    lastNullType = '$';
                    return NIL;
                }
                final byte[] b = in.readNBytes(n);
                line();
                return new String(b, StandardCharsets.UTF_8);
            }
            case '*':
            {
                final int n = Integer.parseInt(line);
                if (n < 0)
                {
                    return NIL;
                }
                final List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++)
                {
                    items.add(read());
                }
                return items;
            }
            case '%':
            {
                final int n = Integer.parseInt(line);
                final Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < n; i++)
                {
                    map.put(read(), read());
                }
                return map;
            }
            default:
                throw new IOException("unexpected reply type '" + (char)type + "' " + line);
        }
    }

    /** Whether the node closed the connection (the next read sees the end of the stream). */
    boolean closedByPeer() throws IOException
    {
        try
        {
            return in.read() < 0;
        }
        catch (final java.net.SocketException reset)
        {
            return true;
        }
    }

    private String line() throws IOException
    {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\r')
        {
            if (c < 0)
            {
                throw new EOFException("connection closed inside a reply");
            }
            b.write(c);
        }
        if (in.read() != '\n')
        {
            throw new IOException("a reply line without \\n after \\r");
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}
