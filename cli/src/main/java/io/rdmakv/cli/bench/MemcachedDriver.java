package io.rdmakv.cli.bench;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Drives memcached with its text protocol:
 *
 * <pre>
 *   get &lt;key&gt;\r\n                         -&gt; VALUE &lt;key&gt; &lt;flags&gt; &lt;bytes&gt;\r\n&lt;data&gt;\r\nEND\r\n  or  END\r\n
 *   set &lt;key&gt; 0 0 &lt;bytes&gt;\r\n&lt;data&gt;\r\n  -&gt; STORED\r\n
 *   errors: ERROR\r\n, CLIENT_ERROR ...\r\n, SERVER_ERROR ...\r\n
 * </pre>
 */
public final class MemcachedDriver implements KvDriver
{
    private static final byte[] GET = "get ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SET = "set ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FLAGS_EXPIRY = " 0 0 ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "END".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] STORED = "STORED".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_KEY = 250;
    private static final int MAX_ITEM = 1 << 30;

    private final InetSocketAddress address;
    private final Duration timeout;

    public MemcachedDriver(final InetSocketAddress address, final Duration timeout)
    {
        this.address = address;
        this.timeout = timeout;
    }

    @Override
    public String name()
    {
        return "memcached";
    }

    @Override
    public DriverConnection connect()
    {
        return new Connection(new ProtocolSocket(address, timeout));
    }

    @Override
    public String describe()
    {
        return "memcached at " + address.getHostString() + ":" + address.getPort();
    }

    @Override
    public void close()
    {
        // connections are closed by their users
    }

    static void checkKeySize(final int keySize)
    {
        if (keySize > MAX_KEY)
        {
            throw new BenchException("memcached keys are at most " + MAX_KEY + " bytes: --key-size " + keySize);
        }
    }

    /** Keys of at most 250 bytes; values up to memcached's largest item size (-I, at most 1 GiB). */
    @Override
    public void checkSizes(final int keySize, final int valueSize)
    {
        checkKeySize(keySize);
        if (valueSize > MAX_ITEM)
        {
            throw new BenchException("memcached items are at most " + MAX_ITEM + " bytes (-I 1024m; 1 MiB unless " +
                "raised): --value-size " + valueSize);
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
            socket.write(GET);
            socket.write(key);
            socket.crlf();
        }

        @Override
        protected void writeSet(final byte[] key, final byte[] value)
        {
            socket.write(SET);
            socket.write(key);
            socket.write(FLAGS_EXPIRY);
            socket.writeDecimal(value.length);
            socket.crlf();
            socket.write(value);
            socket.crlf();
        }

        @Override
        protected String readResponse(final OpType type)
        {
            socket.readLine();
            if (type == OpType.GET)
            {
                if (socket.lineEquals(END))
                {
                    return null;
                }
                if (socket.lineLength() > 6 && socket.line()[0] == 'V')
                {
                    // VALUE <key> <flags> <bytes>: the length is the last field.
                    int lastSpace = socket.lineLength() - 1;
                    while (lastSpace > 0 && socket.line()[lastSpace] != ' ')
                    {
                        lastSpace--;
                    }
                    socket.skip(socket.parseDecimal(lastSpace + 1) + 2);
                    socket.readLine();
                    if (!socket.lineEquals(END))
                    {
                        throw new BenchException(socket.peer() + " sent '" + socket.lineText() + "' instead of END");
                    }
                    hit = true;
                    return null;
                }
                return socket.lineText();
            }
            return socket.lineEquals(STORED) ? null : socket.lineText();
        }
    }
}
