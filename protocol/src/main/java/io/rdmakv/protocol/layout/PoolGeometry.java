package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Where things are in a pool: what a client needs to turn a key into remote addresses. Derivable from the
 * {@link PoolHeaderFlyweight} and carried in the handshake's WELCOME frame.
 *
 * <pre>
 *   pool offset 0                indexOffset                         extentsOffset            extentsOffset+extentsLength
 *   +----------------------------+-----------------------------------+--------------------------+---------- ... poolSize
 *   | pool header (4096 B)       | bucketCount x 64 B index buckets  | value extents (64 B units)|
 *   +----------------------------+-----------------------------------+--------------------------+
 * </pre>
 *
 * Encoded form ({@link #ENCODED_LENGTH} bytes, little-endian):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      Pool size (u64)                          |
 *  +---------------------------------------------------------------+
 *  |                      Index offset (u64)                       |
 *  +---------------------------------------------------------------+
 *  |                      Bucket count (u64)                       |
 *  +---------------------------------------------------------------+
 *  |                      Extents offset (u64)                     |
 *  +---------------------------------------------------------------+
 *  |                      Extents length (u64)                     |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * @param poolSize      bytes in the whole pool.
 * @param indexOffset   first index bucket, from the pool start; 64-byte aligned, after the header and the ownership
 *                      table ({@link #MIN_INDEX_OFFSET}).
 * @param bucketCount   number of buckets, a power of two.
 * @param extentsOffset first extent byte, from the pool start; 64-byte aligned, after the index.
 * @param extentsLength bytes of the extents range; a multiple of 64.
 */
public record PoolGeometry(long poolSize, long indexOffset, long bucketCount, long extentsOffset, long extentsLength)
{
    public static final int ENCODED_LENGTH = 40;
    /** The index starts at or after the header and the slot ownership table. */
    public static final long MIN_INDEX_OFFSET = SlotOwnershipTable.OFFSET + SlotOwnershipTable.LENGTH;

    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    /**
     * @throws ProtocolException {@link ErrorCode#BAD_GEOMETRY} when ranges overlap, leave the pool, are misaligned,
     *                           or the bucket count is not a power of two.
     */
    public PoolGeometry
    {
        if (poolSize <= 0 || (poolSize & 63) != 0)
        {
            throw bad("pool size must be a positive multiple of 64: " + poolSize);
        }
        if (bucketCount <= 0 || Long.bitCount(bucketCount) != 1)
        {
            throw bad("bucket count must be a power of two: " + bucketCount);
        }
        if (indexOffset < MIN_INDEX_OFFSET || (indexOffset & 63) != 0)
        {
            throw bad("index offset must be 64-byte aligned and after the header and ownership table (" +
                MIN_INDEX_OFFSET + "): " + indexOffset);
        }
        if (bucketCount > (poolSize - indexOffset) / IndexBucketFlyweight.BUCKET_LENGTH)
        {
            throw bad("index of " + bucketCount + " buckets at " + indexOffset + " does not fit a pool of " + poolSize);
        }
        final long indexEnd = indexOffset + bucketCount * IndexBucketFlyweight.BUCKET_LENGTH;
        if (extentsOffset < indexEnd || (extentsOffset & 63) != 0)
        {
            throw bad("extents offset must be 64-byte aligned and after the index (ends at " + indexEnd + "): " +
                extentsOffset);
        }
        if (extentsLength < 0 || (extentsLength & 63) != 0 || extentsLength > poolSize - extentsOffset)
        {
            throw bad("extents [" + extentsOffset + ", +" + extentsLength + ") must be 64-byte sized inside the pool of " +
                poolSize);
        }
        if (extentsOffset + extentsLength - ProtocolLimits.EXTENT_ALIGNMENT > IndexEntry.MAX_EXTENT_OFFSET &&
            extentsLength > 0)
        {
            throw bad("extents reach beyond what an index slot can address (" + IndexEntry.MAX_EXTENT_OFFSET + ")");
        }
    }

    /**
     * The usual plan: header, ownership table, then the index right after it, then extents up to the end of the pool.
     *
     * @param poolSize    bytes in the pool, a multiple of 64.
     * @param bucketCount buckets, a power of two.
     */
    public static PoolGeometry plan(final long poolSize, final long bucketCount)
    {
        final long indexOffset = MIN_INDEX_OFFSET;
        if (bucketCount <= 0 || Long.bitCount(bucketCount) != 1 ||
            bucketCount > (poolSize - indexOffset) / IndexBucketFlyweight.BUCKET_LENGTH)
        {
            throw bad("cannot plan " + bucketCount + " buckets in a pool of " + poolSize);
        }
        final long extentsOffset = indexOffset + bucketCount * IndexBucketFlyweight.BUCKET_LENGTH;
        final long extentsLength = Math.min(poolSize - extentsOffset,
            IndexEntry.MAX_EXTENT_OFFSET + ProtocolLimits.EXTENT_ALIGNMENT - extentsOffset) & ~63L;
        return new PoolGeometry(poolSize, indexOffset, bucketCount, extentsOffset, extentsLength);
    }

    /** Byte offset from the pool start of bucket {@code bucketIndex} (masked into range). */
    public long bucketOffset(final long bucketIndex)
    {
        return indexOffset + (bucketIndex & (bucketCount - 1)) * IndexBucketFlyweight.BUCKET_LENGTH;
    }

    /** True when {@code [offset, offset + length)} lies inside the extents range. Never throws. */
    public boolean containsExtent(final long offset, final long length)
    {
        return length >= 0 && offset >= extentsOffset && offset - extentsOffset <= extentsLength - length;
    }

    /** Write the encoded form; returns {@link #ENCODED_LENGTH}. */
    public int encode(final MutableDirectBuffer buffer, final int offset)
    {
        buffer.putLong(offset, poolSize, ORDER);
        buffer.putLong(offset + 8, indexOffset, ORDER);
        buffer.putLong(offset + 16, bucketCount, ORDER);
        buffer.putLong(offset + 24, extentsOffset, ORDER);
        buffer.putLong(offset + 32, extentsLength, ORDER);
        return ENCODED_LENGTH;
    }

    /**
     * Read an encoded geometry.
     *
     * @throws ProtocolException {@link ErrorCode#TRUNCATED} if fewer than {@link #ENCODED_LENGTH} bytes are
     *                           available, {@link ErrorCode#BAD_GEOMETRY} if the values are inconsistent.
     */
    public static PoolGeometry decode(final DirectBuffer buffer, final int offset, final int available)
    {
        if (available < ENCODED_LENGTH)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED,
                "pool geometry needs " + ENCODED_LENGTH + " bytes, got " + available);
        }
        return new PoolGeometry(
            buffer.getLong(offset, ORDER),
            buffer.getLong(offset + 8, ORDER),
            buffer.getLong(offset + 16, ORDER),
            buffer.getLong(offset + 24, ORDER),
            buffer.getLong(offset + 32, ORDER));
    }

    private static ProtocolException bad(final String message)
    {
        return new ProtocolException(ErrorCode.BAD_GEOMETRY, message);
    }
}
