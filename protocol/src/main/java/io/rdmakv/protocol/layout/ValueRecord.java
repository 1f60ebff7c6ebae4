package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The durable record of a value: what a node stores as the RocksDB value of a key, and what a REPLICATE carries, so
 * that every copy of a value (a backup's, a catch-up's, a moved range's) carries its data version and expiry with it,
 * byte for byte, without any of those paths knowing of them.
 *
 * <pre>
 *   0               1               2                                                     10
 *  +---------------+---------------+-----------------------------------------------------+
 *  | Format (u8)=1 | Flags (u8)=0  | Data version (u64)                                  |
 *  +---------------+---------------+-----------------------------------------------------+
 *  | Expiry (u64): ms since the epoch, 0 = never                                         |  10
 *  +--------------------------------------------------------------------------------------+
 *  | Value bytes (V)                                                                  ...  18
 *  +--------------------------------------------------------------------------------------+
 *  little-endian, as the pool
 * </pre>
 *
 * The data version names one write of the key: the primary assigns it, every replica stores it as received, the pool's
 * extent carries it ({@link ValueExtentFlyweight#dataVersion()}). A store written before this format holds bare
 * values and is migrated when it is opened (the server's {@code RecordFormat}).
 *
 * Stateless; every method is static and allocation-free.
 */
public final class ValueRecord
{
    /** Bytes in front of the value. */
    public static final int HEADER_LENGTH = 18;
    /** The format byte this build writes. */
    public static final byte FORMAT = 1;
    public static final int FORMAT_OFFSET = 0;
    public static final int FLAGS_OFFSET = 1;
    public static final int DATA_VERSION_OFFSET = 2;
    public static final int EXPIRY_OFFSET = 10;

    /**
     * Flag: the value is a counter an INCREMENT wrote (decimal ASCII int64); the write's answer carries the value
     * back. A plain PUT writes flags 0.
     */
    public static final int FLAG_COUNTER = 1;

    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private ValueRecord()
    {
    }

    /** Write a record's header at {@code index}; the value follows at {@code index + HEADER_LENGTH}. */
    public static void writeHeader(
        final MutableDirectBuffer buffer, final int index, final long dataVersion, final long expiryMillis)
    {
        writeHeader(buffer, index, dataVersion, expiryMillis, 0);
    }

    /** As above with {@code flags} ({@link #FLAG_COUNTER}). */
    public static void writeHeader(
        final MutableDirectBuffer buffer, final int index, final long dataVersion, final long expiryMillis,
        final int flags)
    {
        buffer.putByte(index + FORMAT_OFFSET, FORMAT);
        buffer.putByte(index + FLAGS_OFFSET, (byte)flags);
        buffer.putLong(index + DATA_VERSION_OFFSET, dataVersion, ORDER);
        buffer.putLong(index + EXPIRY_OFFSET, expiryMillis, ORDER);
    }

    /** A whole record of {@code value} as a new array (tools, tests, migration). */
    public static byte[] of(final byte[] value, final long dataVersion, final long expiryMillis)
    {
        final byte[] record = new byte[HEADER_LENGTH + value.length];
        final ByteBuffer b = ByteBuffer.wrap(record).order(ORDER);
        b.put(FORMAT_OFFSET, FORMAT).put(FLAGS_OFFSET, (byte)0)
            .putLong(DATA_VERSION_OFFSET, dataVersion).putLong(EXPIRY_OFFSET, expiryMillis);
        System.arraycopy(value, 0, record, HEADER_LENGTH, value.length);
        return record;
    }

    /**
     * Check that {@code length} bytes at {@code index} are a record of this format.
     *
     * @throws ProtocolException {@link ErrorCode#TRUNCATED} when shorter than the header, {@link ErrorCode#MALFORMED}
     *                           naming the format byte otherwise.
     */
    public static void check(final DirectBuffer buffer, final int index, final int length)
    {
        if (length < HEADER_LENGTH)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED,
                "value record of " + length + " bytes (its header needs " + HEADER_LENGTH + ")");
        }
        final byte format = buffer.getByte(index + FORMAT_OFFSET);
        if (format != FORMAT)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "value record of format " + (format & 0xFF) +
                ", this build reads format " + FORMAT);
        }
    }

    /** As {@link #check(DirectBuffer, int, int)} for an array. */
    public static void check(final byte[] record)
    {
        if (record.length < HEADER_LENGTH)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED,
                "value record of " + record.length + " bytes (its header needs " + HEADER_LENGTH + ")");
        }
        if (record[FORMAT_OFFSET] != FORMAT)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "value record of format " + (record[FORMAT_OFFSET] & 0xFF) +
                ", this build reads format " + FORMAT);
        }
    }

    public static int flags(final DirectBuffer buffer, final int index)
    {
        return buffer.getByte(index + FLAGS_OFFSET) & 0xFF;
    }

    public static long dataVersion(final DirectBuffer buffer, final int index)
    {
        return buffer.getLong(index + DATA_VERSION_OFFSET, ORDER);
    }

    public static long expiryMillis(final DirectBuffer buffer, final int index)
    {
        return buffer.getLong(index + EXPIRY_OFFSET, ORDER);
    }

    public static long dataVersion(final byte[] record)
    {
        return ByteBuffer.wrap(record).order(ORDER).getLong(DATA_VERSION_OFFSET);
    }

    public static long expiryMillis(final byte[] record)
    {
        return ByteBuffer.wrap(record).order(ORDER).getLong(EXPIRY_OFFSET);
    }

    /** The value of a whole record as a new array (tools, tests). */
    public static byte[] value(final byte[] record)
    {
        check(record);
        final byte[] value = new byte[record.length - HEADER_LENGTH];
        System.arraycopy(record, HEADER_LENGTH, value, 0, value.length);
        return value;
    }

    /** Whether a value with this expiry is expired at {@code nowMillis} (0 never expires). */
    public static boolean expired(final long expiryMillis, final long nowMillis)
    {
        return expiryMillis != 0 && nowMillis >= expiryMillis;
    }
}
