package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The book-keeping of the worker's endpoint buffers, over plain memory (the registration itself needs a device and
 * is proven in the SoftRoCE guest): the slice layout, handing slices out and back, and the refusal when none is left.
 */
class EndpointBufferPoolTest
{
    @Test
    void shouldLaySendReceiveAndBounceAreasOutInOnePageAlignedSlice()
    {
        final EndpointBufferLayout layout = new EndpointBufferLayout(8, 4, 1024, 5000);
        assertEquals(0, layout.sendOffset(0));
        assertEquals(7 * 1024, layout.sendOffset(7));
        assertEquals(8 * 1024, layout.recvBase);
        assertEquals(8 * 1024 + 3 * 1024, layout.recvOffset(3));
        assertEquals(12 * 1024, layout.bounceBase);
        // 12 KiB + 5000 B = 17288 B, rounded up to whole pages: 20480.
        assertEquals(20_480, layout.sliceBytes);
        assertEquals(3L * 20_480, layout.poolBytes(3));
    }

    @Test
    void shouldSizeTheDefaultSliceFromTheDefaultSettings()
    {
        // 128 send + 128 receive buffers of 16 KiB and a 1 MiB + 4 KiB bounce area: 5 MiB + 4 KiB per endpoint.
        final EndpointBufferLayout layout = new EndpointBufferLayout(128, 128, VerbsConfig.DEFAULT_FRAGMENT_BYTES,
            VerbsTransportProvider.MAX_READ_BYTES);
        assertEquals((5 << 20) + 4096, layout.sliceBytes);
    }

    @Test
    void shouldRefuseASliceLargerThanOneBufferViewNamingTheSettings()
    {
        final TransportException e = assertThrows(TransportException.class,
            () -> new EndpointBufferLayout(16384, 16384, 1 << 20, 4096));
        assertTrue(e.getMessage().contains("verbs.sendDepth") && e.getMessage().contains("verbs.fragmentBytes"),
            e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new EndpointBufferLayout(0, 4, 1024, 4096));
    }

    @Test
    void shouldHandOutDisjointSlicesUntilNoneIsLeftThenRefuseNamingTheSetting()
    {
        final EndpointBufferLayout layout = new EndpointBufferLayout(8, 8, 256, 4096);
        final int endpoints = 3;
        final ByteBuffer memory = BufferUtil.allocateDirectAligned((int)layout.poolBytes(endpoints), 4096);
        final long base = new UnsafeBuffer(memory).addressOffset();
        final AtomicInteger released = new AtomicInteger();
        final EndpointBufferPool pool = new EndpointBufferPool("w1", layout, endpoints, base, 0x1234,
            released::incrementAndGet);

        final Set<Long> addresses = new HashSet<>();
        final EndpointBufferPool.Slice[] slices = new EndpointBufferPool.Slice[endpoints];
        for (int i = 0; i < endpoints; i++)
        {
            slices[i] = pool.take();
            assertEquals(i, slices[i].index, "slices are handed out lowest first");
            assertEquals(0x1234, slices[i].lkey, "every slice uses the pool's one registration");
            assertEquals(base + (long)i * layout.sliceBytes, slices[i].address);
            assertEquals(layout.sliceBytes, slices[i].view.capacity());
            assertEquals(slices[i].address + layout.bounceBase, slices[i].bounceView.addressOffset());
            assertTrue(slices[i].address + layout.sliceBytes <= base + pool.bytes(), "slice inside the block");
            assertTrue(addresses.add(slices[i].address));
        }
        assertEquals(endpoints, pool.inUse());

        final TransportException full = assertThrows(TransportException.class, pool::take);
        assertEquals(TransportStatus.NOT_CONNECTED, full.status());
        assertTrue(full.getMessage().contains("verbs.maxEndpoints"), full.getMessage());
        assertTrue(full.getMessage().contains("w1") && full.getMessage().contains("all 3"), full.getMessage());

        pool.giveBack(slices[1]);
        assertEquals(endpoints - 1, pool.inUse());
        assertSame(slices[1], pool.take(), "the freed slice is reused, no new memory");
        assertEquals(0, released.get(), "nothing is released before close");
        pool.close();
        pool.close();
        assertEquals(1, released.get(), "close releases the registration and the memory once");
        assertEquals(TransportStatus.CLOSED, assertThrows(TransportException.class, pool::take).status());
    }

    @Test
    void shouldRefuseASliceGivenBackTwiceOrFromAnotherPool()
    {
        final EndpointBufferLayout layout = new EndpointBufferLayout(8, 8, 256, 4096);
        final ByteBuffer memory = BufferUtil.allocateDirectAligned((int)layout.poolBytes(4), 4096);
        final long base = new UnsafeBuffer(memory).addressOffset();
        final EndpointBufferPool a = new EndpointBufferPool("a", layout, 2, base, 1, () -> { });
        final EndpointBufferPool b = new EndpointBufferPool("b", layout, 2, base + layout.poolBytes(2), 2, () -> { });
        final EndpointBufferPool.Slice slice = a.take();
        a.giveBack(slice);
        assertThrows(IllegalStateException.class, () -> a.giveBack(slice));
        final EndpointBufferPool.Slice other = b.take();
        assertNotSame(slice, other);
        assertThrows(IllegalArgumentException.class, () -> a.giveBack(other));
        assertEquals(1, b.inUse());
        assertEquals(0, a.inUse());
    }
}
