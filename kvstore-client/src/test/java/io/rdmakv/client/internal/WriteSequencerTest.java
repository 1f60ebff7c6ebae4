package io.rdmakv.client.internal;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Write numbers kept across retries, and a completed-below mark that never passes a write still in flight. */
class WriteSequencerTest
{
    private static RequestSlot[] requestSlots(final int n)
    {
        final RequestSlot[] requestSlots = new RequestSlot[n];
        for (int i = 0; i < n; i++)
        {
            requestSlots[i] = new RequestSlot(i, new UnsafeBuffer(new byte[512]), 256);
        }
        return requestSlots;
    }

    @Test
    void shouldKeepAWritesNumberOnEveryRetry()
    {
        final RequestSlot[] requestSlots = requestSlots(2);
        final WriteSequencer writes = new WriteSequencer(requestSlots, 42);
        assertEquals(1, writes.number(requestSlots[0]));
        assertEquals(2, writes.number(requestSlots[1]));
        assertEquals(1, writes.number(requestSlots[0]), "a retry sends the same number");
        requestSlots[0].reset(RequestSlot.TYPE_PUT, 0);
        assertEquals(3, writes.number(requestSlots[0]), "the slot's next request is a new write");
        assertEquals(42, writes.writerId());
        assertThrows(IllegalArgumentException.class, () -> new WriteSequencer(requestSlots, 0));
    }

    @Test
    void shouldMoveTheMarkPastAnsweredWritesOnlyUpToTheOldestInFlight()
    {
        final RequestSlot[] requestSlots = requestSlots(3);
        final WriteSequencer writes = new WriteSequencer(requestSlots, 7);
        final long stuck = writes.number(requestSlots[0]); // a write waiting through a failover
        for (int i = 0; i < 3 * WriteSequencer.SCAN_EVERY; i++)
        {
            writes.number(requestSlots[1]);
            requestSlots[1].writeSequence = 0; // answered and released
        }
        assertEquals(stuck, writes.completedBelow(), "the oldest write in flight holds the mark");
        assertEquals(stuck, requestSlots[0].writeCompletedBelow);
        requestSlots[0].writeSequence = 0;
        for (int i = 0; i < WriteSequencer.SCAN_EVERY; i++)
        {
            writes.number(requestSlots[2]);
            requestSlots[2].writeSequence = 0;
        }
        assertTrue(writes.completedBelow() > stuck, "released: the mark moves on, to " + writes.completedBelow());
    }

    /** Threads number and release writes at once; each write's mark never passes any write still in flight. */
    @Test
    void shouldNeverMarkAWriteInFlightAsAnsweredUnderConcurrency() throws Exception
    {
        final int threads = 4;
        final RequestSlot[] requestSlots = requestSlots(threads);
        final WriteSequencer writes = new WriteSequencer(requestSlots, 9);
        final CyclicBarrier start = new CyclicBarrier(threads);
        final AtomicReference<String> violation = new AtomicReference<>();
        final Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            final RequestSlot own = requestSlots[t];
            workers[t] = new Thread(() ->
            {
                try
                {
                    start.await();
                    for (int i = 0; i < 20_000 && violation.get() == null; i++)
                    {
                        final long n = writes.number(own);
                        for (final RequestSlot other : requestSlots)
                        {
                            final long inFlight = other.writeSequence;
                            if (inFlight != 0 && writes.completedBelow() > inFlight && other.writeSequence == inFlight)
                            {
                                violation.compareAndSet(null, "mark " + writes.completedBelow() + " passed " +
                                    inFlight + " still in flight");
                            }
                        }
                        if (own.writeCompletedBelow > n)
                        {
                            violation.compareAndSet(null, "write " + n + " sent with mark " + own.writeCompletedBelow);
                        }
                        if (i % 3 != 0)
                        {
                            writes.number(own); // a retry
                        }
                        own.writeSequence = 0; // answered
                    }
                }
                catch (final Exception ex)
                {
                    violation.compareAndSet(null, ex.toString());
                }
            });
            workers[t].start();
        }
        for (final Thread w : workers)
        {
            w.join();
        }
        assertNull(violation.get());
    }
}
