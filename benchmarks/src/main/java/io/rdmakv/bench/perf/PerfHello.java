package io.rdmakv.bench.perf;

import io.rdmakv.transport.RemoteKey;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * The first message a {@link PerfServer} sends on every new endpoint: what the client needs to read the server's
 * region (perftest exchanges the same over its out-of-band TCP socket).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     Magic (u32) = "PERF"                      |  0
 *  +---------------------------------------------------------------+
 *  |                     Packed remote key (32 bytes)             ...  4
 *  +---------------------------------------------------------------+
 *  little-endian; 36 bytes in total
 * </pre>
 */
final class PerfHello
{
    static final int MAGIC = 0x46524550;
    static final int LENGTH = 4 + RemoteKey.PACKED_LENGTH;

    private PerfHello()
    {
    }

    static int encode(final MutableDirectBuffer buffer, final RemoteKey key)
    {
        buffer.putInt(0, MAGIC, ByteOrder.LITTLE_ENDIAN);
        key.pack(buffer, 4);
        return LENGTH;
    }

    /** The key in a hello message, or {@code null} when the message is not one. */
    static RemoteKey decode(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length != LENGTH || buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN) != MAGIC)
        {
            return null;
        }
        try
        {
            return RemoteKey.unpack(buffer, offset + 4, length - 4);
        }
        catch (final IllegalArgumentException ex)
        {
            return null;
        }
    }

    /** The byte at {@code offset} of the server's region, so the client can check that a read returned real data. */
    static byte pattern(final long offset)
    {
        return (byte)(offset * 131 + 17);
    }
}
