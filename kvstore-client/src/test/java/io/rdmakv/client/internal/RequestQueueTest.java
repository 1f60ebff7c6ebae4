package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvBackPressureException;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.client.KvTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bounded queue of async requests, with the slots replaced by a starter the test controls. */
@Timeout(30)
class RequestQueueTest
{
    private final ClientCounters counters = new ClientCounters();

    @Test
    void shouldFailQueuedRequestsAtTheDeadlineFixedAtTheCallWhenNoRequestSlotEverFrees() throws Exception
    {
        // Every slot stays busy for ever.
        try (RequestQueue queue = new RequestQueue(8, call -> false, counters, "test-queue"))
        {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            final List<AsyncCall<byte[]>> calls = new ArrayList<>();
            for (int i = 0; i < 10; i++)
            {
                final AsyncCall<byte[]> call = new AsyncCall<>(RequestType.GET, deadline, DrivenFuture.Drive.NONE).bytes(new byte[] {1}, null);
                final boolean queued = queue.offer(call);
                assertEquals(i < 8, queued, "call " + i);
                assertEquals(!queued, call.isDone(), "a refused call fails at once, a queued one waits");
                calls.add(call);
            }
            assertInstanceOf(KvBackPressureException.class, failure(calls.get(8)));
            assertInstanceOf(KvBackPressureException.class, failure(calls.get(9)));
            for (int i = 0; i < 8; i++)
            {
                assertInstanceOf(KvTimeoutException.class, failure(calls.get(i)),
                    "never started, yet timed out: the deadline counts from the call, not from a slot");
            }
            // Not asserted: that the queue's thread asked for a slot before the deadline. On a loaded machine it may
            // first run after the 200 ms have passed and then rightly fails the calls without trying.
            assertEquals(0, queue.pending());
            assertEquals(8, counters.get(ClientCounter.TIMEOUTS));
            assertEquals(2, counters.get(ClientCounter.QUEUE_FULL_REJECTIONS));
        }
    }

    @Test
    void shouldStartQueuedRequestsInOfferOrderAsRequestSlotsAreReleased() throws Exception
    {
        final Semaphore freeRequestSlots = new Semaphore(0);
        final LinkedBlockingQueue<AsyncCall<?>> started = new LinkedBlockingQueue<>();
        try (RequestQueue queue = new RequestQueue(16, call ->
        {
            if (!freeRequestSlots.tryAcquire())
            {
                return false;
            }
            started.add(call);
            return true;
        }, counters, "test-queue"))
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            final List<AsyncCall<Void>> calls = new ArrayList<>();
            for (int i = 0; i < 5; i++)
            {
                final AsyncCall<Void> call = new AsyncCall<>(RequestType.PUT, deadline, DrivenFuture.Drive.NONE).bytes(new byte[] {1},
                    new byte[] {(byte)i});
                assertTrue(queue.offer(call));
                calls.add(call);
            }
            assertEquals(5, queue.pending());
            for (int i = 0; i < 5; i++)
            {
                freeRequestSlots.release();
                queue.requestSlotReleased();
                assertSame(calls.get(i), started.poll(10, TimeUnit.SECONDS), "started in the order offered");
            }
            assertNull(started.poll(50, TimeUnit.MILLISECONDS), "nothing started twice");
            assertEquals(0, queue.pending());
        }
    }

    @Test
    void shouldFailWhatIsQueuedWithClosedWhenClosed() throws Exception
    {
        final RequestQueue queue = new RequestQueue(4, call -> false, counters, "test-queue");
        final AsyncCall<byte[]> call = new AsyncCall<>(RequestType.GET, System.nanoTime() +
            TimeUnit.SECONDS.toNanos(60), DrivenFuture.Drive.NONE).bytes(new byte[] {1}, null);
        assertTrue(queue.offer(call));
        queue.close();
        assertEquals(KvError.CLOSED, failure(call).error());
        final AsyncCall<byte[]> late = new AsyncCall<>(RequestType.GET, System.nanoTime() +
            TimeUnit.SECONDS.toNanos(60), DrivenFuture.Drive.NONE).bytes(new byte[] {1}, null);
        assertFalse(queue.offer(late), "a closed queue takes nothing");
        assertTrue(late.isDone());
    }

    private static KvException failure(final AsyncCall<?> call)
    {
        final ExecutionException ex = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
        return assertInstanceOf(KvException.class, ex.getCause());
    }
}
