package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

import java.nio.ByteOrder;

/**
 * One index bucket: 64 bytes (one cache line) of eight {@link IndexEntry}s, read whole by one remote read.
 * A key lives in one of its two candidate buckets ({@link KeyHash#primaryBucket}, {@link KeyHash#secondaryBucket}).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                    Slot 0 (u64, see IndexEntry)                |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                    Slot 1 (u64)                               |  8
 *  +---------------------------------------------------------------+
 *  |                    ...                                        |
 *  +---------------------------------------------------------------+
 *  |                    Slot 7 (u64)                               |  56
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  little-endian; each slot is written by exactly one ordered 8-byte store
 * </pre>
 *
 * On the server wrap the pool's {@link AtomicBuffer} and use {@link #publish}; on a client wrap the local copy that a
 * remote read filled and use {@link #entry} and {@link #find}.
 */
public final class IndexBucketFlyweight
{
    public static final int BUCKET_LENGTH = 64;
    public static final int ENTRY_COUNT = 8;
    public static final int ENTRY_LENGTH = 8;

    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private DirectBuffer buffer;
    private AtomicBuffer atomicBuffer;
    private int offset;

    /**
     * @throws ProtocolException {@link ErrorCode#TRUNCATED} if fewer than {@link #BUCKET_LENGTH} bytes are present.
     */
    public IndexBucketFlyweight wrap(final DirectBuffer buffer, final int offset)
    {
        if (offset < 0 || buffer.capacity() - offset < BUCKET_LENGTH)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED,
                "index bucket needs " + BUCKET_LENGTH + " bytes at " + offset + ", capacity " + buffer.capacity());
        }
        this.buffer = buffer;
        this.atomicBuffer = buffer instanceof AtomicBuffer ? (AtomicBuffer)buffer : null;
        this.offset = offset;
        return this;
    }

    public int offset()
    {
        return offset;
    }

    /** Slot {@code index} (0..7); an acquire load when the buffer is atomic (a writer may be publishing). */
    public long entry(final int index)
    {
        final int at = entryOffset(index);
        if (atomicBuffer != null)
        {
            final long raw = atomicBuffer.getLongAcquire(at);
            return NATIVE_LITTLE_ENDIAN ? raw : Long.reverseBytes(raw);
        }
        return buffer.getLong(at, ORDER);
    }

    /**
     * Publish a slot with one release store: the extent written before this call is visible to whoever sees the slot.
     */
    public IndexBucketFlyweight publish(final int index, final long entry)
    {
        atomic().putLongRelease(entryOffset(index), NATIVE_LITTLE_ENDIAN ? entry : Long.reverseBytes(entry));
        return this;
    }

    /** Replace {@code expected} by {@code update} atomically; false if the slot changed meanwhile. */
    public boolean compareAndSet(final int index, final long expected, final long update)
    {
        return atomic().compareAndSetLong(entryOffset(index),
            NATIVE_LITTLE_ENDIAN ? expected : Long.reverseBytes(expected),
            NATIVE_LITTLE_ENDIAN ? update : Long.reverseBytes(update));
    }

    /**
     * First slot at or after {@code fromIndex} whose fingerprint is {@code fingerprint}, or -1. Several keys may share
     * a fingerprint, so a reader continues from the next index when the extent's key does not match.
     */
    public int find(final int fingerprint, final int fromIndex)
    {
        for (int i = Math.max(0, fromIndex); i < ENTRY_COUNT; i++)
        {
            final long s = entry(i);
            if (s != IndexEntry.EMPTY && IndexEntry.fingerprint(s) == fingerprint)
            {
                return i;
            }
        }
        return -1;
    }

    /** First empty slot, or -1 when the bucket is full. */
    public int findEmpty()
    {
        for (int i = 0; i < ENTRY_COUNT; i++)
        {
            if (entry(i) == IndexEntry.EMPTY)
            {
                return i;
            }
        }
        return -1;
    }

    /** Number of occupied slots. */
    public int occupancy()
    {
        int n = 0;
        for (int i = 0; i < ENTRY_COUNT; i++)
        {
            if (entry(i) != IndexEntry.EMPTY)
            {
                n++;
            }
        }
        return n;
    }

    private int entryOffset(final int index)
    {
        if (index < 0 || index >= ENTRY_COUNT)
        {
            throw new IndexOutOfBoundsException("slot index " + index + " not in 0.." + (ENTRY_COUNT - 1));
        }
        return offset + index * ENTRY_LENGTH;
    }

    private AtomicBuffer atomic()
    {
        if (atomicBuffer == null)
        {
            throw new IllegalStateException("publishing slots needs an AtomicBuffer");
        }
        return atomicBuffer;
    }
}
