package io.rdmakv.server.store;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A batch of key/value pairs copied out of RocksDB into one direct buffer by a {@link StoreScan}, so a scan of
 * millions of keys allocates nothing per key and its consumer reads the bytes in place.
 *
 * <pre>
 *   0               4               8
 *   +---------------+---------------+-------------+----------------+---------------+----
 *   | key length K  | value length V| key (K)     | value (V)      | next entry    | ...
 *   +---------------+---------------+-------------+----------------+---------------+----
 *   lengths are u32 little-endian; entries are packed; {@link #limit()} bytes are in use
 * </pre>
 *
 * <p>Entries are visited with {@code for (int at = 0; at < batch.limit(); at = batch.next(at))}. Handed between a
 * scanning thread and a consuming thread, one at a time (the hand-over must be a happens-before edge, e.g. a queue).
 */
public final class KeyValueBatch
{
    /** Bytes before the key of every entry. */
    public static final int ENTRY_HEADER_LENGTH = 8;

    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private final ByteBuffer byteBuffer;
    private final UnsafeBuffer view;
    private int limit;
    private int count;
    private long oversized;

    /**
     * @param capacity bytes; an entry larger than {@code capacity - ENTRY_HEADER_LENGTH} is never copied, only
     *                 counted as {@link #oversized()}.
     */
    public KeyValueBatch(final int capacity)
    {
        if (capacity <= ENTRY_HEADER_LENGTH)
        {
            throw new IllegalArgumentException("batch capacity must exceed " + ENTRY_HEADER_LENGTH + ": " + capacity);
        }
        byteBuffer = ByteBuffer.allocateDirect(capacity);
        view = new UnsafeBuffer(byteBuffer);
    }

    /** Empty the batch for refilling. */
    public void clear()
    {
        limit = 0;
        count = 0;
        oversized = 0;
    }

    public int capacity()
    {
        return view.capacity();
    }

    /** Bytes of entries in the batch. */
    public int limit()
    {
        return limit;
    }

    /** Entries in the batch. */
    public int count()
    {
        return count;
    }

    /** Entries the scan passed over since {@link #clear()} because they could never fit a batch. */
    public long oversized()
    {
        return oversized;
    }

    /** The bytes of the batch, for reading keys and values in place. */
    public DirectBuffer buffer()
    {
        return view;
    }

    public int keyLength(final int entry)
    {
        return view.getInt(entry, ORDER);
    }

    public int valueLength(final int entry)
    {
        return view.getInt(entry + 4, ORDER);
    }

    /** Index of the key's first byte in {@link #buffer()}. */
    public int keyIndex(final int entry)
    {
        return entry + ENTRY_HEADER_LENGTH;
    }

    /** Index of the value's first byte in {@link #buffer()}. */
    public int valueIndex(final int entry)
    {
        return entry + ENTRY_HEADER_LENGTH + keyLength(entry);
    }

    /** The entry after {@code entry}. */
    public int next(final int entry)
    {
        return entry + ENTRY_HEADER_LENGTH + keyLength(entry) + valueLength(entry);
    }

    /** The backing buffer for a filler that writes in place (position/limit are the filler's to move). */
    ByteBuffer byteBuffer()
    {
        return byteBuffer;
    }

    /** Commit an entry whose key and value were written in place after a header at {@link #limit()}. */
    void commit(final int keyLength, final int valueLength)
    {
        view.putInt(limit, keyLength, ORDER);
        view.putInt(limit + 4, valueLength, ORDER);
        limit += ENTRY_HEADER_LENGTH + keyLength + valueLength;
        count++;
    }

    void countOversized()
    {
        oversized++;
    }
}
