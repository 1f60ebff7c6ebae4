package io.rdmakv.transport.verbs;

import io.rdmakv.transport.base.OperationWindow;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pending queue keeps order, copies send payloads, resumes partly posted sends and is bounded. */
class PendingQueueTest
{
    private static PendingQueue queue(final int maxOps, final int maxPayloadBytes)
    {
        return new PendingQueue(
            new OperationWindow<>(PendingQueue.Op::new, 0, maxOps, 1_000, new CachedNanoClock()), maxPayloadBytes);
    }

    @Test
    void shouldKeepOrderAndResumeAPartlyPostedSend()
    {
        final PendingQueue q = queue(4, 4_210_688);
        final UnsafeBuffer src = new UnsafeBuffer(new byte[100]);
        for (int i = 0; i < 100; i++)
        {
            src.putByte(i, (byte)i);
        }
        assertTrue(q.addSend(1, null, src, 40, 60, 40));
        src.setMemory(0, 100, (byte)0); // the caller may reuse its buffer at once
        assertTrue(q.addRead(2, null, 0x1000, null, 8, new UnsafeBuffer(new byte[8]), 0));

        final PendingQueue.Op head = q.peek();
        assertFalse(head.isRead);
        assertEquals(100, head.length);
        assertEquals(40, head.sentBytes);
        final int[] firstByte = {-1};
        q.consumeHeadPayload((buffer, offset, length, headOffset) ->
        {
            assertEquals(60, length);
            firstByte[0] = buffer.getByte(offset);
            return false; // could not post all of it: it must stay
        });
        assertEquals(40, firstByte[0]);
        q.consumeHeadPayload((buffer, offset, length, headOffset) -> buffer.getByte(offset + 59) == 99);
        q.removeHead();
        assertTrue(q.peek().isRead);
        assertEquals(2, q.peek().requestId());
        q.removeHead();
        assertTrue(q.isEmpty());
    }

    @Test
    void shouldRefuseBeyondItsOperationLimit()
    {
        final PendingQueue q = queue(2, 1 << 16);
        final UnsafeBuffer src = new UnsafeBuffer(new byte[8]);
        assertTrue(q.addSend(1, null, src, 0, 8, 0));
        assertTrue(q.addRead(2, null, 0, null, 8, src, 0));
        assertFalse(q.addSend(3, null, src, 0, 8, 0));
        assertFalse(q.addRead(4, null, 0, null, 8, src, 0));
        assertEquals(2, q.size());
    }
}
