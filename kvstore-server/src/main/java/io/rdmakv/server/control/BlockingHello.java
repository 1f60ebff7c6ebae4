package io.rdmakv.server.control;

import io.rdmakv.protocol.wire.ControlFrame;
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
        try (Socket socket = tls.connect(control, timeoutMillis))
        {
            final byte[] frame = ControlFrameCodec.encode(hello);
            final OutputStream out = socket.getOutputStream();
            out.write(ByteBuffer.allocate(ControlServer.LENGTH_PREFIX_BYTES).order(ControlServer.LENGTH_PREFIX_ORDER)
                .putInt(frame.length).array());
            out.write(frame);
            out.flush();
            final DataInputStream in = new DataInputStream(socket.getInputStream());
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
            final ControlFrame answer = ControlFrameCodec.decode(in.readNBytes(n));
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
}
