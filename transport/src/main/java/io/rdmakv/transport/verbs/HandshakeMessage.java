package io.rdmakv.transport.verbs;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Flyweight over one control-channel frame of the verbs connection set-up (after Netty's 2-byte length prefix).
 * HELLO carries what each side needs to move its QP to RTR; READY says the client's QP is in RTS (so the server may
 * send); BYE announces a graceful close; REFUSE answers a HELLO the server cannot take (no room for another endpoint,
 * say) with the reason in text, so the client's connect fails with it instead of a bare closed connection.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      Magic 'RKVR' (u32)                       |  0
 *  +---------------+---------------+-------------------------------+
 *  |  Version (1)  |     Type      |           Reserved            |  4
 *  +---------------+---------------+-------------------------------+   end of READY / BYE (8 bytes)
 *  |  REFUSE: the reason, US-ASCII, to the end of the frame (at most MAX_REASON bytes)          |  8
 *  +---------------------------------------------------------------+
 *  |             LID (u16)         |  Active MTU   |     Port      |  8   HELLO from here
 *  +-------------------------------+---------------+---------------+
 *  |                       QP number (u32, 24 bits used)           | 12
 *  +---------------------------------------------------------------+
 *  |                       PSN (u32, 24 bits used)                 | 16
 *  +---------------------------------------------------------------+
 *  |                       Receive depth (u32)                     | 20
 *  +---------------------------------------------------------------+
 *  |                       Fragment bytes (u32)                    | 24
 *  +---------------------------------------------------------------+
 *  |                                                               | 28
 *  |                       GID (16 bytes)                          |
 *  |                                                               |
 *  |                                                               |
 *  +---------------------------------------------------------------+   44 bytes
 *  little-endian; Active MTU is the ibv_mtu enum (1 = 256 ... 5 = 4096)
 * </pre>
 */
final class HandshakeMessage
{
    static final int MAGIC = 0x5256_4B52; // "RKVR" read as little-endian bytes R K V R
    static final int VERSION = 1;
    static final int TYPE_HELLO = 1;
    static final int TYPE_READY = 2;
    static final int TYPE_BYE = 3;
    static final int TYPE_REFUSE = 4;
    static final int HEADER_LENGTH = 8;
    static final int HELLO_LENGTH = 44;
    /** Frames larger than this (the 2-byte length prefix included) are refused by the decoder before they are read. */
    static final int MAX_FRAME = 256;
    /** Longest REFUSE reason: a frame of MAX_FRAME bytes less its length prefix and the header. */
    static final int MAX_REASON = MAX_FRAME - 2 - HEADER_LENGTH;

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int LID = 8;
    private static final int MTU = 10;
    private static final int PORT = 11;
    private static final int QPN = 12;
    private static final int PSN = 16;
    private static final int RECV_DEPTH = 20;
    private static final int FRAGMENT = 24;
    private static final int GID = 28;

    private DirectBuffer buffer;
    private int offset;
    private int length;

    /** Thrown for a frame that is not a valid handshake message; the channel is closed with this message. */
    static final class HandshakeException extends RuntimeException
    {
        HandshakeException(final String message)
        {
            super(message);
        }
    }

    /**
     * Wrap a received frame and check it.
     *
     * @throws HandshakeException if the frame is short, has a wrong magic, version or type, or impossible values.
     */
    HandshakeMessage wrapAndValidate(final DirectBuffer buffer, final int offset, final int length)
    {
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        if (length < HEADER_LENGTH)
        {
            throw new HandshakeException("handshake frame of " + length + " bytes is shorter than its " +
                HEADER_LENGTH + "-byte header");
        }
        if (buffer.getInt(offset, LE) != MAGIC)
        {
            throw new HandshakeException("not a verbs handshake (magic 0x" +
                Integer.toHexString(buffer.getInt(offset, LE)) + ")");
        }
        if (version() != VERSION)
        {
            throw new HandshakeException("handshake version " + version() + " not supported (expected " + VERSION + ")");
        }
        final int type = type();
        if (type == TYPE_HELLO)
        {
            if (length < HELLO_LENGTH)
            {
                throw new HandshakeException("HELLO of " + length + " bytes, expected " + HELLO_LENGTH);
            }
            if (activeMtu() < 1 || activeMtu() > 5)
            {
                throw new HandshakeException("HELLO has invalid MTU code " + activeMtu());
            }
            if ((qpNumber() & ~0xFF_FFFF) != 0 || (psn() & ~0xFF_FFFF) != 0)
            {
                throw new HandshakeException("HELLO has a QP number or PSN wider than 24 bits");
            }
            if (recvDepth() < 2 || recvDepth() > 65536)
            {
                throw new HandshakeException("HELLO has invalid receive depth " + recvDepth());
            }
            if (fragmentBytes() < 64 || fragmentBytes() > (1 << 20))
            {
                throw new HandshakeException("HELLO has invalid fragment size " + fragmentBytes());
            }
        }
        else if (type == TYPE_REFUSE)
        {
            if (length > HEADER_LENGTH + MAX_REASON)
            {
                throw new HandshakeException("REFUSE of " + length + " bytes, at most " + (HEADER_LENGTH + MAX_REASON));
            }
        }
        else if (type != TYPE_READY && type != TYPE_BYE)
        {
            throw new HandshakeException("unknown handshake message type " + type);
        }
        return this;
    }

    static int encodeHeader(final MutableDirectBuffer b, final int offset, final int type)
    {
        b.putInt(offset, MAGIC, LE);
        b.putByte(offset + 4, (byte)VERSION);
        b.putByte(offset + 5, (byte)type);
        b.putShort(offset + 6, (short)0, LE);
        return HEADER_LENGTH;
    }

    static int encodeHello(
        final MutableDirectBuffer b, final int offset, final int lid, final int mtu, final int port, final int qpn,
        final int psn, final int recvDepth, final int fragmentBytes, final byte[] gid)
    {
        encodeHeader(b, offset, TYPE_HELLO);
        b.putShort(offset + LID, (short)lid, LE);
        b.putByte(offset + MTU, (byte)mtu);
        b.putByte(offset + PORT, (byte)port);
        b.putInt(offset + QPN, qpn, LE);
        b.putInt(offset + PSN, psn, LE);
        b.putInt(offset + RECV_DEPTH, recvDepth, LE);
        b.putInt(offset + FRAGMENT, fragmentBytes, LE);
        b.putBytes(offset + GID, gid, 0, 16);
        return HELLO_LENGTH;
    }

    /**
     * REFUSE with {@code reason}: non-ASCII characters become '?', and a reason longer than {@link #MAX_REASON} is cut
     * with "..." at its end.
     *
     * @return the frame's length.
     */
    static int encodeRefuse(final MutableDirectBuffer b, final int offset, final String reason)
    {
        encodeHeader(b, offset, TYPE_REFUSE);
        final String text = reason.length() <= MAX_REASON ? reason : reason.substring(0, MAX_REASON - 3) + "...";
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            b.putByte(offset + HEADER_LENGTH + i, (byte)(c >= 0x20 && c < 0x7F ? c : '?'));
        }
        return HEADER_LENGTH + text.length();
    }

    /** The reason of a REFUSE (printable ASCII only, whatever the peer sent). */
    String reason()
    {
        final StringBuilder sb = new StringBuilder(Math.max(0, length - HEADER_LENGTH));
        for (int i = HEADER_LENGTH; i < length; i++)
        {
            final int c = buffer.getByte(offset + i) & 0xFF;
            sb.append(c >= 0x20 && c < 0x7F ? (char)c : '?');
        }
        return sb.toString();
    }

    int version()
    {
        return buffer.getByte(offset + 4) & 0xFF;
    }

    int type()
    {
        return buffer.getByte(offset + 5) & 0xFF;
    }

    int lid()
    {
        return buffer.getShort(offset + LID, LE) & 0xFFFF;
    }

    int activeMtu()
    {
        return buffer.getByte(offset + MTU) & 0xFF;
    }

    int port()
    {
        return buffer.getByte(offset + PORT) & 0xFF;
    }

    int qpNumber()
    {
        return buffer.getInt(offset + QPN, LE);
    }

    int psn()
    {
        return buffer.getInt(offset + PSN, LE);
    }

    int recvDepth()
    {
        return buffer.getInt(offset + RECV_DEPTH, LE);
    }

    int fragmentBytes()
    {
        return buffer.getInt(offset + FRAGMENT, LE);
    }

    void gid(final byte[] dst)
    {
        buffer.getBytes(offset + GID, dst, 0, 16);
    }
}
