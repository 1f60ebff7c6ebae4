package io.rdmakv.client;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.util.DecoratedBufferOverflowException;
import net.openhft.chronicle.core.io.ClosedIllegalStateException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The copy into a caller's Bytes and the views of a caller's stores, without a node: every kind of source the
 * transports hand over (off-heap, on-heap) into every kind of Bytes a service holds (off-heap, byte[], heap
 * ByteBuffer), the refusal of a value that does not fit, and the drop of a value that arrives after the caller gave up.
 */
class BytesValueSinkTest
{
    private static final byte[] VALUE = ChronicleKvTest.pattern(300);

    @Test
    void shouldAppendFromEitherKindOfSourceIntoEveryKindOfBytes()
    {
        final DirectBuffer offHeap = offHeap(VALUE);
        final DirectBuffer onHeap = new UnsafeBuffer(prefixed(VALUE), 7, VALUE.length);
        for (final DirectBuffer source : new DirectBuffer[] {offHeap, onHeap})
        {
            for (final Bytes<?> into : new Bytes<?>[] {Bytes.allocateElasticDirect(4), Bytes.allocateElasticOnHeap(4),
                Bytes.elasticHeapByteBuffer(4)})
            {
                into.writeByte((byte)-1);
                assertNull(BytesValueSink.into(into).accept(source, 0, VALUE.length), into.getClass().getName());
                final byte[] got = into.toByteArray();
                assertEquals(1 + VALUE.length, got.length);
                assertEquals(-1, got[0], "appended after what was there");
                assertArrayEquals(VALUE, Arrays.copyOfRange(got, 1, got.length), into.getClass().getName());
                into.releaseLast();
            }
        }
    }

    @Test
    void shouldRefuseAValueThatDoesNotFitAndLeaveTheBytesAsTheyWere()
    {
        final Bytes<?> fixed = Bytes.allocateDirect(100);
        final RuntimeException refusal = BytesValueSink.into(fixed).accept(offHeap(VALUE), 0, VALUE.length);
        assertInstanceOf(DecoratedBufferOverflowException.class, refusal);
        assertEquals(0, fixed.writePosition());
        fixed.releaseLast();
    }

    @Test
    void shouldDropAValueArrivingAfterTheCallerGaveUp()
    {
        final Bytes<?> into = Bytes.allocateElasticDirect(16);
        final BytesValueSink sink = BytesValueSink.into(into);
        sink.close();
        assertNull(sink.accept(offHeap(VALUE), 0, VALUE.length));
        assertEquals(0, into.writePosition(), "nothing written once closed");
        into.releaseLast();
    }

    @Test
    void shouldRefuseReleasedBytesAtTheCallAndAtTheCopy()
    {
        final Bytes<?> released = Bytes.allocateElasticDirect(16);
        released.releaseLast();
        assertThrows(ClosedIllegalStateException.class, () -> BytesValueSink.into(released));
        final Bytes<?> later = Bytes.allocateElasticDirect(16);
        final BytesValueSink sink = BytesValueSink.into(later);
        later.releaseLast();
        assertInstanceOf(ClosedIllegalStateException.class, sink.accept(offHeap(VALUE), 0, VALUE.length));
    }

    @Test
    void shouldViewTheReadableBytesOfEveryKindOfStoreWithoutCopying()
    {
        final BytesStore<?, ?> direct = BytesStore.nativeStoreFrom(VALUE);
        final DirectBuffer directView = ChronicleKv.view(direct, "value");
        assertEquals(direct.addressForRead(0), directView.addressOffset(), "the store's own memory");
        final Bytes<byte[]> heap = Bytes.allocateElasticOnHeap(8);
        heap.write(prefixed(VALUE));
        heap.readSkip(7);
        final Bytes<ByteBuffer> heapBuffer = Bytes.elasticHeapByteBuffer(8);
        heapBuffer.write(prefixed(VALUE));
        heapBuffer.readSkip(7);
        for (final BytesStore<?, ?> store : new BytesStore<?, ?>[] {direct, heap, heapBuffer})
        {
            final DirectBuffer view = ChronicleKv.view(store, "value");
            final byte[] got = new byte[view.capacity()];
            view.getBytes(0, got);
            assertArrayEquals(VALUE, got, store.getClass().getName());
        }
        assertEquals(7, heap.readPosition(), "positions unchanged");
        assertEquals(0, ChronicleKv.view(BytesStore.nativeStoreFrom(new byte[0]), "value").capacity());
        direct.releaseLast();
        heap.releaseLast();
        heapBuffer.releaseLast();
    }

    private static DirectBuffer offHeap(final byte[] bytes)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(bytes.length));
        buffer.putBytes(0, bytes);
        return buffer;
    }

    private static byte[] prefixed(final byte[] bytes)
    {
        final byte[] out = new byte[7 + bytes.length];
        System.arraycopy(bytes, 0, out, 7, bytes.length);
        return out;
    }
}
