package io.rdmakv.it.support;

import io.rdmakv.protocol.wire.ControlFrame;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.Welcome;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The control plane on a raw socket: frames behind a u32 little-endian length prefix, encoded with the protocol's
 * {@link ControlFrameCodec}; and the handshake a raw data-port client needs (HELLO, WELCOME, its session ticket).
 */
public final class ControlPlaneWire
{
    private ControlPlaneWire()
    {
    }

    /** The control plane's u32 length prefix: little-endian like every other field of the protocol. */
    public static byte[] lengthPrefix(final int length)
    {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(length).array();
    }

    public static byte[] framed(final byte[] frame)
    {
        final byte[] framed = Arrays.copyOf(lengthPrefix(frame.length), 4 + frame.length);
        System.arraycopy(frame, 0, framed, 4, frame.length);
        return framed;
    }

    public static byte[] hello(final int version)
    {
        return framed(ControlFrameCodec.encode(new Hello(version, List.of("tcp"), new byte[0])));
    }

    public static ControlFrame read(final RawConnection c, final Duration timeout) throws IOException
    {
        final int length = ByteBuffer.wrap(c.readExactly(4, timeout)).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (length <= 0 || length > ControlFrameCodec.MAX_FRAME_LENGTH)
        {
            throw new IOException("implausible control frame length " + length);
        }
        return ControlFrameCodec.decode(c.readExactly(length, timeout));
    }

    /** A full handshake on a fresh control connection; returns the WELCOME (with a fresh session ticket). */
    public static Welcome handshake(final InetSocketAddress control, final Duration timeout) throws IOException
    {
        try (RawConnection c = RawConnection.open(control))
        {
            c.send(hello(ControlFrameCodec.PROTOCOL_VERSION));
            final ControlFrame answer = read(c, timeout);
            if (!(answer instanceof Welcome welcome))
            {
                throw new IOException("expected WELCOME, got " + answer);
            }
            return welcome;
        }
    }

    /**
     * A raw data-port connection admitted the way a client is: handshake on the control plane, then ATTACH with the
     * WELCOME's session ticket as the first message, answered OK.
     */
    public static RawConnection attachedDataConnection(final ServerProcess server, final Duration timeout)
        throws IOException
    {
        final Welcome welcome = handshake(server.controlAddress(), timeout);
        final RawConnection c = RawConnection.open(server.dataAddress());
        c.send(DataPortWire.attach(0, welcome.sessionTicket()));
        final DataPortWire.Response ok = DataPortWire.readResponse(c, timeout);
        if (ok.status() != 0)
        {
            c.close();
            throw new IOException("ATTACH refused with status " + ok.status());
        }
        return c;
    }
}
