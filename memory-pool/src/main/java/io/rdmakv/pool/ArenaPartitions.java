package io.rdmakv.pool;

import com.sun.jna.Pointer;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Agrona views over one contiguous native range that may be larger than 2 GiB. An {@link UnsafeBuffer}'s capacity
 * is an {@code int}, so the range is cut into partitions of a power-of-two size (at most 1 GiB), each with its own
 * view; only the last one may be shorter. An arena offset resolves to (partition, offset in partition) with a shift
 * and a mask, without allocation:
 *
 * <pre>
 *   arena offset:  | partition index (offset >>> shift) | offset in partition (offset &amp; mask) |
 *
 *   address      address + P      address + 2P               address + size
 *   |  partition 0  |  partition 1  |  ...  |  partition n-1 (may be short)  |
 * </pre>
 *
 * Nothing handed out by the pool ever crosses a partition boundary: the allocator's runs of pages (a power of two
 * no larger than the partition size) never span one.
 *
 * <p>Each view wraps a direct {@link ByteBuffer} over its partition (made by JNA, which can view a native address as
 * one; the JDK cannot), so {@link UnsafeBuffer#byteBuffer()} is set and code that needs a ByteBuffer, like the JDK's
 * intrinsic {@code CRC32C.update(ByteBuffer)}, runs on pool memory in place. The ByteBuffer owns nothing: the arena
 * unmaps the memory, never the garbage collector.
 */
public final class ArenaPartitions
{
    /** The largest allowed partition size: the largest power of two an {@code int} capacity can hold. */
    public static final int MAX_PARTITION_SIZE = 1 << 30;
    /** The smallest allowed partition size: one cache line. */
    public static final int MIN_PARTITION_SIZE = 64;

    private final long address;
    private final long size;
    private final int partitionSize;
    private final int shift;
    private final long mask;
    private final UnsafeBuffer[] partitions;

    /**
     * @param address the start of the native range.
     * @param size the length of the range in bytes.
     * @param partitionSize a power of two in [{@link #MIN_PARTITION_SIZE}, {@link #MAX_PARTITION_SIZE}].
     */
    public ArenaPartitions(final long address, final long size, final int partitionSize)
    {
        if (size <= 0)
        {
            throw new IllegalArgumentException("size must be positive: " + size);
        }
        if (partitionSize < MIN_PARTITION_SIZE || partitionSize > MAX_PARTITION_SIZE ||
            !BitUtil.isPowerOfTwo(partitionSize))
        {
            throw new IllegalArgumentException("partitionSize must be a power of two in [" + MIN_PARTITION_SIZE +
                ", " + MAX_PARTITION_SIZE + "]: " + partitionSize);
        }
        final long count = (size + partitionSize - 1) / partitionSize;
        if (count > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("too many partitions: " + count);
        }
        this.address = address;
        this.size = size;
        this.partitionSize = partitionSize;
        this.shift = Integer.numberOfTrailingZeros(partitionSize);
        this.mask = partitionSize - 1L;
        this.partitions = new UnsafeBuffer[(int)count];
        for (int i = 0; i < partitions.length; i++)
        {
            final long start = (long)i * partitionSize;
            partitions[i] = new UnsafeBuffer(directView(address + start, (int)Math.min(partitionSize, size - start)));
        }
    }

    /** A direct ByteBuffer over {@code length} bytes at {@code address}; no copy, no cleaner, no memory access. */
    static ByteBuffer directView(final long address, final int length)
    {
        return new Pointer(address).getByteBuffer(0, length);
    }

    public long address()
    {
        return address;
    }

    public long size()
    {
        return size;
    }

    public int partitionCount()
    {
        return partitions.length;
    }

    public int partitionSize()
    {
        return partitionSize;
    }

    /** The view of partition {@code index}; its capacity is {@link #partitionSize()} except maybe for the last. */
    public UnsafeBuffer partition(final int index)
    {
        return partitions[index];
    }

    /** The partition holding arena offset {@code offset} (no bounds check: see {@link #checkRange(long, long)}). */
    public int partitionIndex(final long offset)
    {
        return (int)(offset >>> shift);
    }

    /** The offset of arena offset {@code offset} inside its partition. */
    public int partitionOffset(final long offset)
    {
        return (int)(offset & mask);
    }

    /** The view holding arena offset {@code offset}; index it with {@link #partitionOffset(long)}. */
    public UnsafeBuffer bufferFor(final long offset)
    {
        return partitions[(int)(offset >>> shift)];
    }

    /** True if {@code [offset, offset + length)} lies inside the range and inside one partition. */
    public boolean isWithinOnePartition(final long offset, final long length)
    {
        return offset >= 0 && length >= 0 && offset + length <= size &&
            (length == 0 || (offset >>> shift) == ((offset + length - 1) >>> shift));
    }

    /** Throw {@link IndexOutOfBoundsException} unless {@link #isWithinOnePartition(long, long)}; for cold paths. */
    public void checkRange(final long offset, final long length)
    {
        if (!isWithinOnePartition(offset, length))
        {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + offset + "+" + length +
                ") is outside the arena (size " + size + ") or crosses a partition boundary (partition size " +
                partitionSize + ")");
        }
    }

    /** Point every view at an empty array, so a use after the memory is unmapped fails a bounds check. */
    void detach()
    {
        final byte[] empty = new byte[0];
        for (final UnsafeBuffer partition : partitions)
        {
            partition.wrap(empty);
        }
    }
}
