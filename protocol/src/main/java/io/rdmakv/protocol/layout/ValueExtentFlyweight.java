package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * A value extent: one key's committed value in the pool, 64-byte aligned and a multiple of 64 bytes long. The server
 * writes a fresh extent out of place and then publishes it in an {@link IndexEntry}; a client reads it one-sided and
 * {@link #verify verifies} it, because the extent may be torn or reused while it is being read.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     CRC32C (u32) of bytes [8, 24 + K + V)     |  0
 *  +-+-------------------------------------------------------------+
 *  |R|       State: low 31 bits of the version (outside the CRC)   |  4   R = RETIRED (bit 31)
 *  +-+-----------------------------+-------------------------------+
 *  |       Key length K (u16)      |          Flags (u16)          |  8
 *  +-------------------------------+-------------------------------+
 *  |                     Value length V (u32)                      |  12
 *  +---------------------------------------------------------------+
 *  |                     Version (u64): the extent's, node-local   |  16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     Data version (u64): the value's           |  24
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     Expiry (u64): ms since the epoch, 0 = none|  32
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     Key bytes (K)                            ...  40
 *  +---------------------------------------------------------------+
 *  |                     Value bytes (V)                          ...  40 + K
 *  +---------------------------------------------------------------+
 *  |                     Padding to a multiple of 64              ...
 *  +---------------------------------------------------------------+
 *  little-endian; the CRC is written after header, key and value, the state word last
 * </pre>
 *
 * <p><b>The state word</b> is the one field the writer changes after publication, so it is outside the CRC. It is
 * {@link #liveState LIVE(version)} from the moment the extent is written, and the writer stores
 * {@link #retiredState RETIRED(version)} into it with an ordered store ({@link #retire()}) <em>before</em> it
 * publishes anything that supersedes the extent (a newer extent of the key, an empty slot after a delete or an
 * eviction). A reader that already knows where a key's value lives (a client's location cache) reads the extent
 * alone and accepts it only through {@link #verifyCurrent}: intact, the expected key, the expected version, and a
 * state word that says LIVE for exactly that version. Seeing LIVE means the word was read before the writer's retire
 * mark, hence before the replacement was published: the value was the committed one at that instant. Because the
 * state word carries the version's low bits, a word read from the extent's next life (reused after the grace period
 * for another value) never passes for the old one's LIVE.
 *
 * Not thread-safe (it keeps a CRC32C state): one flyweight per thread.
 */
public final class ValueExtentFlyweight
{
    public static final int HEADER_LENGTH = 40;

    public static final int CRC_OFFSET = 0;
    public static final int STATE_OFFSET = 4;
    public static final int KEY_LENGTH_OFFSET = 8;
    public static final int FLAGS_OFFSET = 10;
    public static final int VALUE_LENGTH_OFFSET = 12;
    public static final int VERSION_OFFSET = 16;
    public static final int DATA_VERSION_OFFSET = 24;
    public static final int EXPIRY_OFFSET = 32;
    public static final int KEY_OFFSET = HEADER_LENGTH;
    /** The CRC covers the header from here (past CRC and state word) to the end of the value. */
    public static final int CRC_START = KEY_LENGTH_OFFSET;

    /** Bit 31 of the state word: the writer has superseded this extent. */
    public static final int RETIRED_BIT = 0x8000_0000;
    private static final int STATE_VERSION_MASK = 0x7FFF_FFFF;

    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final Crc32c crc32c = new Crc32c();
    private final UnsafeBuffer arrayView = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer valueArrayView = new UnsafeBuffer(new byte[0]);
    private DirectBuffer buffer;
    private int offset;
    private int length;

    /**
     * Wrap {@code length} bytes of an extent (for a reader: the bytes it read; for the writer: the space allocated).
     *
     * @throws ProtocolException {@link ErrorCode#TRUNCATED} if {@code length} is below the header or beyond the buffer.
     */
    public ValueExtentFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < HEADER_LENGTH || offset < 0 || buffer.capacity() - offset < length)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED, "value extent of " + length + " bytes at " + offset +
                " (header needs " + HEADER_LENGTH + ", buffer capacity " + buffer.capacity() + ")");
        }
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        return this;
    }

    /**
     * Bytes an extent for this key and value occupies: header + key + value rounded up to 64.
     *
     * @throws ProtocolException {@link ErrorCode#KEY_TOO_LARGE} / {@link ErrorCode#VALUE_TOO_LARGE} when the result
     *                           would not fit {@link ProtocolLimits#MAX_EXTENT_LENGTH}.
     */
    public static int requiredLength(final int keyLength, final int valueLength)
    {
        if (keyLength < 0 || keyLength > ProtocolLimits.MAX_KEY_LENGTH)
        {
            throw new ProtocolException(ErrorCode.KEY_TOO_LARGE,
                "key length " + keyLength + " not in 0.." + ProtocolLimits.MAX_KEY_LENGTH);
        }
        final long raw = (long)HEADER_LENGTH + keyLength + valueLength;
        if (valueLength < 0 || raw > ProtocolLimits.MAX_EXTENT_LENGTH)
        {
            throw new ProtocolException(ErrorCode.VALUE_TOO_LARGE, "value length " + valueLength +
                " with key length " + keyLength + " exceeds an extent of " + ProtocolLimits.MAX_EXTENT_LENGTH);
        }
        return (int)((raw + 63) & ~63L);
    }

    /** True when a key and value of these lengths fit one extent. Never throws. */
    public static boolean fits(final int keyLength, final int valueLength)
    {
        return keyLength >= 0 && keyLength <= ProtocolLimits.MAX_KEY_LENGTH && valueLength >= 0 &&
            (long)HEADER_LENGTH + keyLength + valueLength <= ProtocolLimits.MAX_EXTENT_LENGTH;
    }

    /** The state word of a live extent of {@code version}: its low 31 bits, RETIRED clear. */
    public static int liveState(final long version)
    {
        return (int)version & STATE_VERSION_MASK;
    }

    /** The state word of a superseded extent of {@code version}: its low 31 bits, RETIRED set. */
    public static int retiredState(final long version)
    {
        return liveState(version) | RETIRED_BIT;
    }

    /**
     * {@link #write(DirectBuffer, int, int, DirectBuffer, int, int, long, long, long)} of a value with data version 0
     * and no expiry (tools, tests, benchmarks).
     */
    public int write(
        final DirectBuffer key, final int keyOffset, final int keyLength,
        final DirectBuffer value, final int valueOffset, final int valueLength,
        final long version)
    {
        return write(key, keyOffset, keyLength, value, valueOffset, valueLength, version, 0, 0);
    }

    /**
     * Write a whole extent: header, key, value, then the CRC, then the state word LIVE(version) (an ordered store
     * when the buffer is an {@link AtomicBuffer}). Returns the extent's {@link #requiredLength}.
     *
     * @param version      the extent version (node-local, see the class comment).
     * @param dataVersion  the value's data version, from its durable record.
     * @param expiryMillis when the value expires, ms since the epoch; 0 when it does not.
     * @throws ProtocolException when the lengths are out of range or the wrapped space is too small.
     */
    public int write(
        final DirectBuffer key, final int keyOffset, final int keyLength,
        final DirectBuffer value, final int valueOffset, final int valueLength,
        final long version, final long dataVersion, final long expiryMillis)
    {
        final int required = requiredLength(keyLength, valueLength);
        if (required > length)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED,
                "extent needs " + required + " bytes, only " + length + " wrapped");
        }
        final MutableDirectBuffer b = mutable();
        b.putShort(offset + KEY_LENGTH_OFFSET, (short)keyLength, ORDER);
        b.putShort(offset + FLAGS_OFFSET, (short)0, ORDER);
        b.putInt(offset + VALUE_LENGTH_OFFSET, valueLength, ORDER);
        b.putLong(offset + VERSION_OFFSET, version, ORDER);
        b.putLong(offset + DATA_VERSION_OFFSET, dataVersion, ORDER);
        b.putLong(offset + EXPIRY_OFFSET, expiryMillis, ORDER);
        b.putBytes(offset + KEY_OFFSET, key, keyOffset, keyLength);
        b.putBytes(offset + KEY_OFFSET + keyLength, value, valueOffset, valueLength);
        final int end = HEADER_LENGTH + keyLength + valueLength;
        b.setMemory(offset + end, required - end, (byte)0);
        updateCrc();
        storeState(liveState(version));
        return required;
    }

    /**
     * Mark the extent superseded: an ordered store of RETIRED(version) into the state word. The single writer calls
     * this before it publishes whatever replaces the extent (see the class comment); the slot store that follows is
     * a release store, so no reader can see the replacement without the mark being visible too.
     */
    public ValueExtentFlyweight retire()
    {
        storeState(retiredState(version()));
        return this;
    }

    /** {@link #write(DirectBuffer, int, int, DirectBuffer, int, int, long)} from arrays; reuses internal views. */
    public int write(final byte[] key, final byte[] value, final long version)
    {
        arrayView.wrap(key);
        valueArrayView.wrap(value);
        return write(arrayView, 0, key.length, valueArrayView, 0, value.length, version);
    }

    /** Recompute and store the CRC over the current header, key and value (after changing {@link #flags(int)}). */
    public ValueExtentFlyweight updateCrc()
    {
        final int covered = HEADER_LENGTH - CRC_START + keyLength() + valueLength();
        final int crc = crc32c.compute(buffer, offset + CRC_START, covered);
        mutable().putInt(offset + CRC_OFFSET, crc, ORDER);
        return this;
    }

    /**
     * Check lengths and CRC only (recovery scans, the server's own checks).
     */
    public ExtentStatus verify()
    {
        final long end = (long)HEADER_LENGTH + keyLength() + valueLengthUnsigned();
        if (keyLength() > ProtocolLimits.MAX_KEY_LENGTH || end > length)
        {
            return ExtentStatus.BAD_LENGTH;
        }
        final int crc = crc32c.compute(buffer, offset + CRC_START, (int)end - CRC_START);
        return crc == crc() ? ExtentStatus.OK : ExtentStatus.TORN_CRC;
    }

    /**
     * Check lengths, CRC and that the extent holds {@code expectedKey}. Never throws on any content.
     */
    public ExtentStatus verify(final DirectBuffer expectedKey, final int keyOffset, final int keyLength)
    {
        final ExtentStatus status = verify();
        if (status != ExtentStatus.OK)
        {
            return status;
        }
        if (keyLength != keyLength())
        {
            return ExtentStatus.KEY_MISMATCH;
        }
        final int base = offset + KEY_OFFSET;
        int i = 0;
        for (; i + 8 <= keyLength; i += 8)
        {
            if (buffer.getLong(base + i) != expectedKey.getLong(keyOffset + i))
            {
                return ExtentStatus.KEY_MISMATCH;
            }
        }
        for (; i < keyLength; i++)
        {
            if (buffer.getByte(base + i) != expectedKey.getByte(keyOffset + i))
            {
                return ExtentStatus.KEY_MISMATCH;
            }
        }
        return ExtentStatus.OK;
    }

    /**
     * Check what a reader that knew the key's location and version needs before it may return the value without
     * consulting the index: {@link #verify(DirectBuffer, int, int) lengths, CRC and key}, then that the extent is
     * of {@code expectedVersion} ({@link ExtentStatus#VERSION_MISMATCH} otherwise: rewritten or reused), then that its
     * state word says LIVE for that version ({@link ExtentStatus#RETIRED} otherwise: superseded, deleted or evicted).
     * Never throws on any content.
     */
    public ExtentStatus verifyCurrent(
        final DirectBuffer expectedKey, final int keyOffset, final int keyLength, final long expectedVersion)
    {
        final ExtentStatus status = verify(expectedKey, keyOffset, keyLength);
        if (status != ExtentStatus.OK)
        {
            return status;
        }
        if (version() != expectedVersion)
        {
            return ExtentStatus.VERSION_MISMATCH;
        }
        return state() == liveState(expectedVersion) ? ExtentStatus.OK : ExtentStatus.RETIRED;
    }

    /** {@link #verify(DirectBuffer, int, int)} against a key array; reuses an internal view, no allocation. */
    public ExtentStatus verify(final byte[] expectedKey)
    {
        arrayView.wrap(expectedKey);
        return verify(arrayView, 0, expectedKey.length);
    }

    public int crc()
    {
        return buffer.getInt(offset + CRC_OFFSET, ORDER);
    }

    /** The state word as read (plain load): compare with {@link #liveState} / {@link #retiredState}. */
    public int state()
    {
        return buffer.getInt(offset + STATE_OFFSET, ORDER);
    }

    /** True when the state word says LIVE for the version in the header. */
    public boolean isLive()
    {
        return state() == liveState(version());
    }

    public int keyLength()
    {
        return buffer.getShort(offset + KEY_LENGTH_OFFSET, ORDER) & 0xFFFF;
    }

    public int flags()
    {
        return buffer.getShort(offset + FLAGS_OFFSET, ORDER) & 0xFFFF;
    }

    /** Set flags; call {@link #updateCrc()} afterwards, the CRC covers them. */
    public ValueExtentFlyweight flags(final int flags)
    {
        mutable().putShort(offset + FLAGS_OFFSET, (short)flags, ORDER);
        return this;
    }

    /** The value length as stored; only meaningful after {@link #verify} returned OK. */
    public int valueLength()
    {
        return buffer.getInt(offset + VALUE_LENGTH_OFFSET, ORDER);
    }

    public long version()
    {
        return buffer.getLong(offset + VERSION_OFFSET, ORDER);
    }

    /** The value's data version (from its durable record); meaningful after {@link #verify} returned OK. */
    public long dataVersion()
    {
        return buffer.getLong(offset + DATA_VERSION_OFFSET, ORDER);
    }

    /** When the value expires, ms since the epoch, 0 = never; meaningful after {@link #verify} returned OK. */
    public long expiryMillis()
    {
        return buffer.getLong(offset + EXPIRY_OFFSET, ORDER);
    }

    /** Index in the wrapped buffer of the first key byte. */
    public int keyIndex()
    {
        return offset + KEY_OFFSET;
    }

    /** Index in the wrapped buffer of the first value byte (valid after a successful verify). */
    public int valueIndex()
    {
        return offset + KEY_OFFSET + keyLength();
    }

    public DirectBuffer buffer()
    {
        return buffer;
    }

    /** Copy the value into {@code destination}; returns its length. Call only after {@link #verify} returned OK. */
    public int getValue(final MutableDirectBuffer destination, final int destinationOffset)
    {
        final int valueLength = valueLength();
        destination.putBytes(destinationOffset, buffer, valueIndex(), valueLength);
        return valueLength;
    }

    /** The value as a new array (tools and tests). Call only after {@link #verify} returned OK. */
    public byte[] value()
    {
        final byte[] value = new byte[valueLength()];
        buffer.getBytes(valueIndex(), value);
        return value;
    }

    /** The key as a new array (tools and tests). */
    public byte[] key()
    {
        final byte[] key = new byte[Math.min(keyLength(), length - HEADER_LENGTH)];
        buffer.getBytes(keyIndex(), key);
        return key;
    }

    private long valueLengthUnsigned()
    {
        return valueLength() & 0xFFFF_FFFFL;
    }

    private void storeState(final int state)
    {
        if (buffer instanceof AtomicBuffer atomic)
        {
            atomic.putIntRelease(offset + STATE_OFFSET, NATIVE_LITTLE_ENDIAN ? state : Integer.reverseBytes(state));
        }
        else
        {
            mutable().putInt(offset + STATE_OFFSET, state, ORDER);
        }
    }

    private MutableDirectBuffer mutable()
    {
        if (!(buffer instanceof MutableDirectBuffer))
        {
            throw new IllegalStateException("value extent wrapped read-only; wrap a MutableDirectBuffer to write");
        }
        return (MutableDirectBuffer)buffer;
    }
}
