package io.rdmakv.transport.verbs.ffi;

import com.sun.jna.Pointer;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * One page-aligned block of native memory with a stable address, viewed through an {@link UnsafeBuffer}. The block
 * lives as long as this object (the direct {@link ByteBuffer} is kept reachable); it is allocated once, at set-up,
 * and its fields are then changed in place.
 */
public final class NativeBlock
{
    public static final int PAGE_SIZE = 4096;

    private final ByteBuffer memory;
    private final UnsafeBuffer buffer;
    private final long address;

    public NativeBlock(final int capacity)
    {
        if (capacity <= 0)
        {
            throw new IllegalArgumentException("native block capacity must be positive: " + capacity);
        }
        this.memory = BufferUtil.allocateDirectAligned(align(capacity, PAGE_SIZE), PAGE_SIZE);
        this.buffer = new UnsafeBuffer(memory);
        this.address = buffer.addressOffset();
    }

    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    public long address()
    {
        return address;
    }

    public int capacity()
    {
        return buffer.capacity();
    }

    /** A JNA pointer to {@code offset} within the block, for set-up calls (allocates; never on the data path). */
    public Pointer pointer(final int offset)
    {
        return new Pointer(address + offset);
    }

    public static int align(final int value, final int alignment)
    {
        return (value + alignment - 1) & -alignment;
    }
}
