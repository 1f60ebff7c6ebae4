package io.rdmakv.client;

import io.rdmakv.client.internal.ValueSink;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.util.DecoratedBufferOverflowException;
import net.openhft.chronicle.core.io.ClosedIllegalStateException;
import org.agrona.DirectBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * A GET's value appended to a caller's Chronicle {@link Bytes} at its write position, copied once from where the
 * protocol found it (the slot's read window or the transport's receive buffer): {@code nativeWrite} into off-heap
 * Bytes, {@code getBytes} into an on-heap array. Elastic Bytes grow; a value beyond what the Bytes can hold is
 * refused with Chronicle's {@link DecoratedBufferOverflowException} and the Bytes stay as they were.
 *
 * <p>The copy runs on the thread that completes the GET (usually the client's progress thread), which takes the
 * Bytes over from the caller for Chronicle's single-thread check and gives them back before the caller sees the
 * result. A synchronous caller {@link #close() closes} the sink when its call returns or throws: a value arriving after
 * the caller gave up (timeout) is then dropped instead of written into memory the caller may have released.
 */
final class BytesValueSink implements ValueSink
{
    private static final int OPEN = 0;
    private static final int WRITING = 1;
    private static final int FINISHED = 2;
    private static final AtomicIntegerFieldUpdater<BytesValueSink> STATE =
        AtomicIntegerFieldUpdater.newUpdater(BytesValueSink.class, "state");

    private final Bytes<?> into;
    private volatile int state;

    private BytesValueSink(final Bytes<?> into)
    {
        this.into = into;
    }

    /**
     * A sink appending to {@code into}.
     *
     * @throws NullPointerException        when {@code into} is null.
     * @throws ClosedIllegalStateException when {@code into} has been released.
     */
    static BytesValueSink into(final Bytes<?> into)
    {
        if (into == null)
        {
            throw new NullPointerException("into");
        }
        if (into.refCount() <= 0)
        {
            throw new ClosedIllegalStateException("the destination Bytes has been released");
        }
        return new BytesValueSink(into);
    }

    @Override
    public RuntimeException accept(final DirectBuffer buffer, final int index, final int length)
    {
        if (!STATE.compareAndSet(this, OPEN, WRITING))
        {
            return null; // the caller gave up: its Bytes are no longer ours to write
        }
        try
        {
            // Chronicle checks that one thread uses a Bytes (under -ea): this thread borrows it from the caller for
            // the copy and hands it back after; the request's completion orders the two (a volatile write and read).
            into.singleThreadedCheckReset();
            return append(buffer, index, length);
        }
        catch (final RuntimeException ex)
        {
            return ex;
        }
        finally
        {
            into.singleThreadedCheckReset();
            state = FINISHED;
        }
    }

    /** No write after this returns (one in progress is waited for: a copy of at most the largest value). */
    void close()
    {
        while (!STATE.compareAndSet(this, OPEN, FINISHED) && state == WRITING)
        {
            Thread.onSpinWait();
        }
    }

    private RuntimeException append(final DirectBuffer buffer, final int index, final int length)
    {
        if (into.refCount() <= 0)
        {
            return new ClosedIllegalStateException("the destination Bytes was released before the value arrived");
        }
        final long position = into.writePosition();
        if (length > into.writeRemaining())
        {
            return new DecoratedBufferOverflowException("a value of " + length + " bytes does not fit: the Bytes " +
                "can take " + into.writeRemaining() + " more (capacity " + into.capacity() + ", write position " +
                position + "); use elastic Bytes or a larger capacity");
        }
        into.ensureCapacity(position + length);
        final byte[] sourceArray = buffer.byteArray();
        if (into.isDirectMemory())
        {
            if (sourceArray == null)
            {
                into.nativeWrite(buffer.addressOffset() + index, position, length);
            }
            else
            {
                into.write(position, sourceArray, buffer.wrapAdjustment() + index, length);
            }
        }
        else
        {
            final Object target = into.underlyingObject();
            if (target instanceof byte[])
            {
                buffer.getBytes(index, (byte[])target, Math.toIntExact(position), length);
            }
            else if (target instanceof ByteBuffer)
            {
                buffer.getBytes(index, (ByteBuffer)target, Math.toIntExact(position), length);
            }
            else
            {
                return new IllegalArgumentException("Bytes over " + target + " are not supported: use off-heap " +
                    "or byte[]-backed Bytes");
            }
        }
        into.writePosition(position + length);
        return null;
    }
}
