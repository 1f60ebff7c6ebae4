package io.rdmakv.transport.verbs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ring order and the FIFO bounce allocator that reads rely on. */
class SendQueueRingTest
{
    @Test
    void shouldWrapAndKnowWhichSendSlotsArePosted()
    {
        final SendQueueRing ring = new SendQueueRing(4, 1024);
        for (int i = 0; i < 3; i++)
        {
            assertEquals(i, ring.claim(SendQueueRing.KIND_SEND, i, null, false, 0));
        }
        assertEquals(0, ring.pop());
        assertEquals(1, ring.pop());
        assertEquals(3, ring.claim(SendQueueRing.KIND_SEND, 3, null, false, 0));
        assertEquals(0, ring.claim(SendQueueRing.KIND_SEND, 4, null, false, 0));
        assertEquals(1, ring.claim(SendQueueRing.KIND_SEND, 5, null, false, 0));
        assertEquals(0, ring.free());
        assertTrue(ring.isPosted(2));
        assertTrue(ring.isPosted(1));
        ring.pop();
        assertFalse(ring.isPosted(2));
        assertFalse(ring.isPosted(7));
        assertEquals(1, ring.free());
    }

    @Test
    void shouldAllocateBounceSpaceFirstInFirstOutAndWrapWithoutSplitting()
    {
        final SendQueueRing ring = new SendQueueRing(8, 1024);
        assertEquals(0, ring.allocateBounce(400));       // 0..448 (aligned to 64)
        final int a = ring.claim(SendQueueRing.KIND_READ, 0, null, true, 0);
        ring.bounceSpan[a] = ring.lastSpan();
        assertEquals(448, ring.allocateBounce(500));     // 448..960
        final int b = ring.claim(SendQueueRing.KIND_READ, 1, null, true, 0);
        ring.bounceSpan[b] = ring.lastSpan();
        assertEquals(-1, ring.allocateBounce(100), "only 64 bytes left at the end and the front is in use");
        ring.pop();                                       // frees 0..448
        final int c = ring.allocateBounce(100);           // does not fit in the 64-byte tail: wraps to 0
        assertEquals(0, c);
        ring.bounceSpan[ring.claim(SendQueueRing.KIND_READ, 2, null, true, 0)] = ring.lastSpan();
        assertEquals(64 + 128 + 512, ring.bounceUsed());
        assertEquals(-1, ring.allocateBounce(2048), "larger than the whole area");
        ring.pop();
        ring.pop();
        assertEquals(0, ring.bounceUsed());
    }

    @Test
    void shouldFitAReadOfTheWholeAreaOnceEverythingEarlierCompleted()
    {
        final SendQueueRing ring = new SendQueueRing(4, 1024);
        assertEquals(0, ring.allocateBounce(300));
        ring.bounceSpan[ring.claim(SendQueueRing.KIND_READ, 0, null, true, 0)] = ring.lastSpan();
        assertEquals(-1, ring.allocateBounce(1024), "the area is partly in use");
        ring.pop();
        assertEquals(0, ring.allocateBounce(1024), "an empty area must take a read of its full size");
        assertEquals(1024, ring.bounceUsed());
    }
}
