package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.ControlFrame;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.Reject;
import io.rdmakv.protocol.wire.Welcome;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * A peer authenticates on another node's data port exactly as a client does: HELLO with the cluster's shared secret
 * on the control port (blocking, on a connector thread, never the request thread), then the WELCOME's session ticket
 * in the data endpoint's ATTACH. Control frames: u32 little-endian length + frame.
 */
final class PeerHandshake
{
    private PeerHandshake()
    {
    }

    /**
     * @param secret the cluster secret ({@code auth.secret}), empty when the cluster runs open.
     * @return the WELCOME's session ticket.
     * @throws IOException when the peer cannot be reached or refuses (REJECT, with its reason).
     */
    static byte[] ticket(final InetSocketAddress control, final String transport, final byte[] secret,
        final int timeoutMillis)
        throws IOException
    {
        try (Socket socket = new Socket())
        {
            socket.connect(control, timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            final byte[] frame = ControlFrameCodec.encode(
                new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of(transport), secret));
            final OutputStream out = socket.getOutputStream();
            out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(frame.length).array());
            out.write(frame);
            out.flush();
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            final byte[] length = in.readNBytes(4);
            if (length.length < 4)
            {
                throw new EOFException("peer " + control + " closed the control connection before answering");
            }
            final int n = ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).getInt();
            if (n < 0 || n > 1 << 16)
            {
                throw new IOException("peer " + control + " sent a control frame of " + n + " bytes");
            }
            final ControlFrame answer = ControlFrameCodec.decode(in.readNBytes(n));
            if (answer instanceof Welcome welcome)
            {
                return welcome.sessionTicket();
            }
            if (answer instanceof Reject reject)
            {
                throw new IOException("peer " + control + " refused the handshake: " + reject.status() + " " +
                    reject.message());
            }
            throw new IOException("peer " + control + " answered HELLO with " + answer);
        }
    }
}
