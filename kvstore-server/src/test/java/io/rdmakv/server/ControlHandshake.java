package io.rdmakv.server;

import io.rdmakv.protocol.wire.ControlFrame;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** A blocking one-shot HELLO over a plain socket (u32 little-endian length prefix + frame), for tests. */
public final class ControlHandshake
{
    private ControlHandshake()
    {
    }

    /** Send HELLO with {@code credential} and return the answer (WELCOME or REJECT). */
    public static ControlFrame hello(final InetSocketAddress control, final String credential) throws IOException
    {
        try (Socket socket = new Socket())
        {
            socket.connect(control, 20_000);
            socket.setSoTimeout(20_000);
            final byte[] frame = ControlFrameCodec.encode(new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of("tcp"),
                credential.getBytes(StandardCharsets.UTF_8)));
            final OutputStream out = socket.getOutputStream();
            out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(frame.length).array());
            out.write(frame);
            out.flush();
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            final byte[] length = in.readNBytes(4);
            if (length.length < 4)
            {
                throw new EOFException("control connection closed before an answer");
            }
            final int n = ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).getInt();
            return ControlFrameCodec.decode(in.readNBytes(n));
        }
    }
}
