package io.rdmakv.it.support;

import io.rdmakv.protocol.wire.ControlFrame;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Control-port frames on a {@link RawConnection}: a HELLO with a chosen credential, and the one answer.
 *
 * <pre>
 *  control frame: | length u32 LE (bytes after it) | ControlFrameCodec frame |
 * </pre>
 */
public final class ControlPortWire
{
    private ControlPortWire()
    {
    }

    /** A length-prefixed HELLO carrying {@code credential} (empty: none). */
    public static byte[] hello(final String credential)
    {
        final byte[] frame = ControlFrameCodec.encode(new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of("tcp"),
            credential.getBytes(StandardCharsets.UTF_8)));
        return ByteBuffer.allocate(4 + frame.length).order(ByteOrder.LITTLE_ENDIAN).putInt(frame.length).put(frame)
            .array();
    }

    /** Read the server's answer (a WELCOME or a REJECT) within {@code timeout}. */
    public static ControlFrame answer(final RawConnection connection, final Duration timeout) throws IOException
    {
        final int length = ByteBuffer.wrap(connection.readExactly(4, timeout)).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (length <= 0 || length > ControlFrameCodec.MAX_FRAME_LENGTH)
        {
            throw new IOException("implausible control frame length " + length);
        }
        return ControlFrameCodec.decode(connection.readExactly(length, timeout));
    }
}
