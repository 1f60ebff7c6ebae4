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
    private static RequestSlot[] slots(final int n)
    {
        final RequestSlot[] slots = new RequestSlot[n];
        for (int i = 0; i < n; i++)
        {
            slots[i] = new RequestSlot(i, new UnsafeBuffer(new byte[512]), 256);
        }
        return slots;
    }

    @Test
    void shouldKeepAWritesNumberOnEveryRetry()
    {
        final RequestSlot[] slots = slots(2);
        final WriteSequencer writes = new WriteSequencer(slots, 42);
        assertEquals(1, writes.number(slots[0]));
        assertEquals(2, writes.number(slots[1]));
        assertEquals(1, writes.number(slots[0]), "a retry sends the same number");
        slots[0].reset(RequestSlot.TYPE_PUT, 0);
        assertEquals(3, writes.number(slots[0]), "the slot's next request is a new write");
        assertEquals(42, writes.writerId());
        assertThrows(IllegalArgumentException.class, () -> new WriteSequencer(slots, 0));
    }

    @Test
    void shouldMoveTheMarkPastAnsweredWritesOnlyUpToTheOldestInFlight()
    {
        final RequestSlot[] slots = slots(3);
        final WriteSequencer writes = new WriteSequencer(slots, 7);
        final long stuck = writes.number(slots[0]); // a write waiting through a failover
        for (int i = 0; i < 3 * WriteSequencer.SCAN_EVERY; i++)
        {
            writes.number(slots[1]);
            slots[1].writeSequence = 0; // answered and released
        }
        assertEquals(stuck, writes.completedBelow(), "the oldest write in flight holds the mark");
        assertEquals(stuck, slots[0].writeCompletedBelow);
        slots[0].writeSequence = 0;
        for (int i = 0; i < WriteSequencer.SCAN_EVERY; i++)
        {
            writes.number(slots[2]);
            slots[2].writeSequence = 0;
        }
        assertTrue(writes.completedBelow() > stuck, "released: the mark moves on, to " + writes.completedBelow());
    }

    /** Threads number and release writes at once; each write's mark never passes any write still in flight. */
    @Test
    void shouldNeverMarkAWriteInFlightAsAnsweredUnderConcurrency() throws Exception
    {
        final int threads = 4;
        final RequestSlot[] slots = slots(threads);
        final WriteSequencer writes = new WriteSequencer(slots, 9);
        final CyclicBarrier start = new CyclicBarrier(threads);
        final AtomicReference<String> violation = new AtomicReference<>();
        final Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            final RequestSlot own = slots[t];
            workers[t] = new Thread(() ->
            {
                try
                {
                    start.await();
                    for (int i = 0; i < 20_000 && violation.get() == null; i++)
                    {
                        final long n = writes.number(own);
                        for (final RequestSlot other : slots)
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
