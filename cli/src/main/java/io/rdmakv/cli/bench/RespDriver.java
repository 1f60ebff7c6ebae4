package io.rdmakv.cli.bench;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Drives a RESP server (redis-server) with GET and SET as RESP arrays of bulk strings:
 *
 * <pre>
 *   GET:  *2\r\n$3\r\nGET\r\n$&lt;klen&gt;\r\n&lt;key&gt;\r\n               -&gt; $&lt;len&gt;\r\n&lt;value&gt;\r\n  or  $-1\r\n
 *   SET:  *3\r\n$3\r\nSET\r\n$&lt;klen&gt;\r\n&lt;key&gt;\r\n$&lt;vlen&gt;\r\n&lt;value&gt;\r\n  -&gt; +OK\r\n
 *   errors: -ERR ...\r\n
 * </pre>
 */
public final class RespDriver implements KvDriver
{
    private static final int MAX_BULK = 512 << 20;
    private static final byte[] GET_HEAD = "*2\r\n$3\r\nGET\r\n$".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SET_HEAD = "*3\r\n$3\r\nSET\r\n$".getBytes(StandardCharsets.US_ASCII);

    private final InetSocketAddress address;
    private final Duration timeout;

    public RespDriver(final InetSocketAddress address, final Duration timeout)
    {
        this.address = address;
        this.timeout = timeout;
    }

    @Override
    public String name()
    {
        return "resp";
    }

    @Override
    public DriverConnection connect()
    {
        return new Connection(new ProtocolSocket(address, timeout));
    }

    @Override
    public String describe()
    {
        return "RESP server at " + address.getHostString() + ":" + address.getPort();
    }

    @Override
    public void close()
    {
        // connections are closed by their users
    }

    /** Redis takes keys and values up to its bulk length limit (proto-max-bulk-len, 512 MiB by default). */
    @Override
    public void checkSizes(final int keySize, final int valueSize)
    {
        if (keySize > MAX_BULK || valueSize > MAX_BULK)
        {
            throw new BenchException("redis strings are at most " + MAX_BULK + " bytes (proto-max-bulk-len): " +
                "--key-size " + keySize + ", --value-size " + valueSize);
        }
    }

    private static final class Connection extends PipelinedConnection
    {
        Connection(final ProtocolSocket socket)
        {
            super(socket);
        }

        @Override
        protected void writeGet(final byte[] key)
        {
            socket.write(GET_HEAD);
            bulk(key);
        }

        @Override
        protected void writeSet(final byte[] key, final byte[] value)
        {
            socket.write(SET_HEAD);
            bulk(key);
            socket.write((byte)'$');
            bulk(value);
        }

        /** Length, CRLF, bytes, CRLF (the '$' is already written). */
        private void bulk(final byte[] bytes)
        {
            socket.writeDecimal(bytes.length);
            socket.crlf();
            socket.write(bytes);
            socket.crlf();
        }

        @Override
        protected String readResponse(final OpType type)
        {
            socket.readLine();
            if (socket.lineLength() == 0)
            {
                throw new BenchException(socket.peer() + " sent an empty RESP line");
            }
            final byte kind = socket.line()[0];
            if (kind == '-')
            {
                return socket.lineText();
            }
            if (type == OpType.GET)
            {
                if (kind != '$')
                {
                    throw new BenchException(socket.peer() + " answered GET with '" + socket.lineText() + "'");
                }
                final long length = socket.parseDecimal(1);
                if (length >= 0)
                {
                    socket.skip(length + 2);
                    hit = true;
                }
                return null;
            }
            if (kind != '+')
            {
                throw new BenchException(socket.peer() + " answered SET with '" + socket.lineText() + "'");
            }
            return null;
        }
    }
}
