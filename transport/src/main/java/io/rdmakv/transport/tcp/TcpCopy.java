package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** Copies between Agrona buffers, raw native memory and Netty buffers without allocating on the common paths. */
final class TcpCopy
{
    private TcpCopy()
    {
    }

    /** Append {@code length} bytes of {@code src} at {@code offset} to {@code dst}. */
    static void append(final DirectBuffer src, final int offset, final ByteBuf dst, final int length)
    {
        if (src.byteArray() != null)
        {
            dst.writeBytes(src.byteArray(), src.wrapAdjustment() + offset, length);
        }
        else if (dst.hasMemoryAddress() && PlatformDependent.hasUnsafe())
        {
            final int writerIndex = dst.writerIndex();
            dst.ensureWritable(length);
            PlatformDependent.copyMemory(src.addressOffset() + offset, dst.memoryAddress() + writerIndex, length);
            dst.writerIndex(writerIndex + length);
        }
        else
        {
            final int writerIndex = dst.writerIndex();
            dst.ensureWritable(length);
            src.getBytes(offset, dst.nioBuffer(writerIndex, length), 0, length);
            dst.writerIndex(writerIndex + length);
        }
    }

    /** Append {@code length} bytes of native memory at {@code address} to {@code dst}. */
    static void appendNative(final long address, final ByteBuf dst, final int length)
    {
        if (dst.hasMemoryAddress() && PlatformDependent.hasUnsafe())
        {
            final int writerIndex = dst.writerIndex();
            dst.ensureWritable(length);
            PlatformDependent.copyMemory(address, dst.memoryAddress() + writerIndex, length);
            dst.writerIndex(writerIndex + length);
        }
        else
        {
            append(new org.agrona.concurrent.UnsafeBuffer(address, length), 0, dst, length);
        }
    }

    /** Copy {@code length} bytes of {@code src} at {@code index} into {@code dst} at {@code dstOffset}. */
    static void copyOut(final ByteBuf src, final int index, final MutableDirectBuffer dst, final int dstOffset,
        final int length)
    {
        if (dst.byteArray() != null)
        {
            src.getBytes(index, dst.byteArray(), dst.wrapAdjustment() + dstOffset, length);
        }
        else if (src.hasMemoryAddress() && PlatformDependent.hasUnsafe())
        {
            PlatformDependent.copyMemory(src.memoryAddress() + index, dst.addressOffset() + dstOffset, length);
        }
        else
        {
            dst.putBytes(dstOffset, src.nioBuffer(index, length), 0, length);
        }
    }
}
