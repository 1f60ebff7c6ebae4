package io.rdmakv.server.control;

import io.rdmakv.protocol.auth.Login;
import io.rdmakv.protocol.auth.ScramClient;
import io.rdmakv.protocol.wire.ControlFrame;
import io.rdmakv.protocol.wire.ScramMessage;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.Reject;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.transport.tls.TlsSettings;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One HELLO and its answer over a blocking socket (TLS 1.3 when the settings say so), for the node's own calls to a
 * peer's control port (replication links) and the backup tool: no event loop for one exchange.
 */
public final class BlockingHello
{
    private BlockingHello()
    {
    }

    /**
     * @param who "peer" or "node", for the messages.
     * @return the node's WELCOME.
     * @throws IOException when the node cannot be reached, the TLS handshake fails, or it refuses (REJECT, with its
     *                     reason).
     */
    public static Welcome exchange(final InetSocketAddress control, final Hello hello, final int timeoutMillis,
        final TlsSettings tls, final String who) throws IOException
    {
        return exchange(control, hello, timeoutMillis, tls, who, null);
    }

    /**
     * As {@link #exchange(InetSocketAddress, Hello, int, TlsSettings, String)}, logging in as {@code login}
     * (SCRAM-SHA-256: challenge, proof, the node's signature checked) when not null.
     */
    public static Welcome exchange(final InetSocketAddress control, final Hello hello, final int timeoutMillis,
        final TlsSettings tls, final String who, final Login login) throws IOException
    {
        try (Socket socket = tls.connect(control, timeoutMillis))
        {
            final OutputStream out = socket.getOutputStream();
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            final ScramClient scram = login == null ? null : login.scram();
            write(out, login == null ? hello : hello.withScram(scram.clientFirst()));
            ControlFrame answer = read(in, control, who);
            if (scram != null && answer instanceof Welcome)
            {
                throw new IOException(who + " " + control + " welcomed user " + login.user() + " without a SCRAM " +
                    "exchange: it has no users (auth.usersFile), and a node that does not prove it holds the user's " +
                    "key is not trusted");
            }
            if (scram != null && answer instanceof ScramMessage challenge)
            {
                try
                {
                    write(out, new ScramMessage(scram.clientFinal(challenge.message())));
                    answer = read(in, control, who);
                    if (answer instanceof ScramMessage serverFinal)
                    {
                        scram.verifyServerFinal(serverFinal.message());
                        answer = read(in, control, who);
                    }
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new IOException(who + " " + control + ": " + ex.getMessage(), ex);
                }
                finally
                {
                    scram.clear();
                }
            }
            if (answer instanceof Welcome welcome)
            {
                return welcome;
            }
            if (answer instanceof Reject reject)
            {
                throw new IOException(who + " " + control + " refused the handshake: " + reject.status() + " " +
                    reject.message());
            }
            throw new IOException(who + " " + control + " answered HELLO with " + answer);
        }
    }

    private static void write(final OutputStream out, final ControlFrame frame) throws IOException
    {
        final byte[] bytes = ControlFrameCodec.encode(frame);
        out.write(ByteBuffer.allocate(ControlServer.LENGTH_PREFIX_BYTES).order(ControlServer.LENGTH_PREFIX_ORDER)
            .putInt(bytes.length).array());
        out.write(bytes);
        out.flush();
    }

    private static ControlFrame read(final DataInputStream in, final InetSocketAddress control, final String who)
        throws IOException
    {
        final byte[] length = in.readNBytes(ControlServer.LENGTH_PREFIX_BYTES);
        if (length.length < ControlServer.LENGTH_PREFIX_BYTES)
        {
            throw new EOFException(who + " " + control + " closed the control connection before answering");
        }
        final int n = ByteBuffer.wrap(length).order(ControlServer.LENGTH_PREFIX_ORDER).getInt();
        if (n < 0 || n > ControlFrameCodec.MAX_FRAME_LENGTH)
        {
            throw new IOException(who + " " + control + " sent a control frame of " + n + " bytes");
        }
        return ControlFrameCodec.decode(in.readNBytes(n));
    }
}
