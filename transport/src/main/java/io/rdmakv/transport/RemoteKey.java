package io.rdmakv.transport;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * A packed remote key: everything a peer needs to read one registered region, in a versioned byte format that
 * travels in the control-plane handshake.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |  Version (1)  |  Transport id |           Reserved            |
 *  +---------------+---------------+-------------------------------+
 *  |                     Native key (u32)                          |  verbs: the MR's rkey; tcp: region id
 *  +---------------------------------------------------------------+
 *  |                     Base address (u64)                        |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     Length (u64)                              |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     Token (u64)                               |  tcp: secret checked by the target; verbs: 0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  all fields little-endian; 32 bytes in total
 * </pre>
 *
 * @param transportId  which transport packed it ({@link #TRANSPORT_TCP}, {@link #TRANSPORT_VERBS},
 *                     {@link #TRANSPORT_SHM}).
 * @param nativeKey    the transport's own key for the region.
 * @param baseAddress  the region's first byte in the target's address space; reads name absolute addresses.
 * @param length       the region's length in bytes.
 * @param token        a secret the target checks on emulated reads (tcp).
 */
public record RemoteKey(int transportId, int nativeKey, long baseAddress, long length, long token)
{
    public static final int VERSION = 1;
    public static final int PACKED_LENGTH = 32;
    public static final int TRANSPORT_TCP = 1;
    public static final int TRANSPORT_VERBS = 2;
    public static final int TRANSPORT_SHM = 3;

    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    /** Write the packed form at {@code offset}; returns {@link #PACKED_LENGTH}. */
    public int pack(final MutableDirectBuffer buffer, final int offset)
    {
        buffer.putByte(offset, (byte)VERSION);
        buffer.putByte(offset + 1, (byte)transportId);
        buffer.putShort(offset + 2, (short)0, ORDER);
        buffer.putInt(offset + 4, nativeKey, ORDER);
        buffer.putLong(offset + 8, baseAddress, ORDER);
        buffer.putLong(offset + 16, length, ORDER);
        buffer.putLong(offset + 24, token, ORDER);
        return PACKED_LENGTH;
    }

    /** The packed form as a new array (control plane only; never on the data path). */
    public byte[] pack()
    {
        final org.agrona.concurrent.UnsafeBuffer buffer = new org.agrona.concurrent.UnsafeBuffer(new byte[PACKED_LENGTH]);
        pack(buffer, 0);
        return buffer.byteArray();
    }

    /**
     * Read a packed key.
     *
     * @throws IllegalArgumentException if fewer than {@link #PACKED_LENGTH} bytes remain or the version is unknown.
     */
    public static RemoteKey unpack(final DirectBuffer buffer, final int offset, final int available)
    {
        if (available < PACKED_LENGTH)
        {
            throw new IllegalArgumentException("packed remote key needs " + PACKED_LENGTH + " bytes, got " + available);
        }
        final int version = buffer.getByte(offset) & 0xFF;
        if (version != VERSION)
        {
            throw new IllegalArgumentException("unknown remote key version " + version + " (expected " + VERSION + ")");
        }
        return new RemoteKey(
            buffer.getByte(offset + 1) & 0xFF,
            buffer.getInt(offset + 4, ORDER),
            buffer.getLong(offset + 8, ORDER),
            buffer.getLong(offset + 16, ORDER),
            buffer.getLong(offset + 24, ORDER));
    }

    public static RemoteKey unpack(final byte[] packed)
    {
        return unpack(new org.agrona.concurrent.UnsafeBuffer(packed), 0, packed.length);
    }

    /** True when {@code [address, address + bytes)} lies inside the region this key names. */
    public boolean covers(final long address, final long bytes)
    {
        return bytes >= 0 && address >= baseAddress && address - baseAddress <= length - bytes;
    }

    @Override
    public String toString()
    {
        // Never print the token: it is a credential.
        return "RemoteKey{transport=" + transportId + ", key=0x" + Integer.toHexString(nativeKey) +
            ", base=0x" + Long.toHexString(baseAddress) + ", length=" + length + '}';
    }
}
