package io.rdmakv.it.support;

import io.rdmakv.protocol.wire.ControlFrame;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;

/**
 * A raw data-port connection admitted the way a real client is: a HELLO on the control port yields a WELCOME with a
 * single-use session ticket, and the first message on the data connection is ATTACH with that ticket. Tests then
 * write whatever bytes they want on an admitted connection (malformed input from a client that passed the handshake
 * is the harder case: the server already trusts the endpoint).
 *
 * <pre>
 *  control frame: | length u32 LE (bytes after it) | ControlFrameCodec frame |
 *  ATTACH body:   | ticket (16 bytes) |
 * </pre>
 */
public final class DataPortSession
{
    private DataPortSession()
    {
    }

    /** Handshake with the node's control port and return its WELCOME (with a fresh ticket). */
    public static Welcome handshake(final ServerProcess server, final Duration timeout) throws IOException
    {
        try (RawConnection control = RawConnection.open(server.controlAddress()))
        {
            final byte[] hello = ControlFrameCodec.encode(
                new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of("tcp", "verbs"), new byte[0]));
            control.send(ByteBuffer.allocate(4 + hello.length).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(hello.length).put(hello).array());
            final int length = ByteBuffer.wrap(control.readExactly(4, timeout)).order(ByteOrder.LITTLE_ENDIAN).getInt();
            if (length <= 0 || length > ControlFrameCodec.MAX_FRAME_LENGTH)
            {
                throw new IOException("implausible control frame length " + length);
            }
            final ControlFrame answer = ControlFrameCodec.decode(control.readExactly(length, timeout));
            if (!(answer instanceof Welcome welcome))
            {
                throw new IOException("handshake refused: " + answer);
            }
            return welcome;
        }
    }

    /** A data-port connection that has handshaken and attached; the server answered the ATTACH with OK. */
    public static RawConnection openAttached(final ServerProcess server, final Duration timeout) throws IOException
    {
        final Welcome welcome = handshake(server, timeout);
        final RawConnection data = RawConnection.open(server.dataAddress());
        try
        {
            data.send(DataPortWire.request(MessageType.ATTACH_REQUEST.code(), 1L, welcome.sessionTicket()));
            final DataPortWire.Response response = DataPortWire.readResponse(data, timeout);
            if (response.status() != Status.OK.code())
            {
                throw new IOException("ATTACH refused with status " + response.status());
            }
            return data;
        }
        catch (final IOException | RuntimeException ex)
        {
            data.close();
            throw ex;
        }
    }
}
