package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.transport.WorkerProgress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RequestSlots#await} with a driver (caller-driven progress): a synchronous caller completes its own request
 * in a duty cycle it runs itself, counted as {@link ClientCounter#CALLER_COMPLETIONS}; a driver that cannot drive (-1)
 * or a request another thread completes falls back to the park and the hand-over, as without a driver. Counts and
 * threads are asserted, never times.
 */
class CallerDrivenAwaitTest
{
    private static final int REQUEST_SLOTS = 4;
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final ClientCounters counters = new ClientCounters();
    private final RequestSlots requestSlots = new RequestSlots(REQUEST_SLOTS,
        new UnsafeBuffer(ByteBuffer.allocateDirect(REQUEST_SLOTS * (RequestSlot.EXTENT_OFFSET + 64))),
        RequestSlot.EXTENT_OFFSET + 64, 64, counters);

    @Test
    @Timeout(30)
    void shouldCompleteTheRequestOnTheCallerThatDrivesProgress()
    {
        final RequestSlot requestSlot = syncGet();
        final byte[] value = {1, 2, 3};
        final AtomicReference<Thread> completedOn = new AtomicReference<>();
        final FakeProgress driver = new FakeProgress(3, () ->
        {
            // the answer arrives on the third cycle, polled by whoever runs it
            completedOn.set(Thread.currentThread());
            requestSlot.succeed(Status.OK, value, null);
            requestSlots.complete(requestSlot);
        });

        assertArrayEquals(value, requestSlots.await(requestSlot, RequestType.GET, TIMEOUT_NANOS, driver));
        assertSame(Thread.currentThread(), completedOn.get(), "the caller's own cycle completed it");
        assertEquals(3, driver.cycles.get(), "the caller drove until its answer came");
        assertEquals(1, counters.get(ClientCounter.CALLER_COMPLETIONS));
        assertEquals(RequestSlot.STATE_FREE, requestSlot.state, "the slot went back to the pool");
    }

    @Test
    @Timeout(30)
    void shouldParkAndBeHandedTheResultWhenCallersCannotDrive() throws Exception
    {
        final RequestSlot requestSlot = syncGet();
        final FakeProgress driver = new FakeProgress(-1, null); // EVENT_DRIVEN or closed: -1 at once
        final Thread progressThread = completeNotFoundOnceParked(requestSlots, requestSlot);

        assertEquals(null, requestSlots.await(requestSlot, RequestType.GET, TIMEOUT_NANOS, driver));
        progressThread.join();
        assertEquals(1, driver.calls.get(), "one refused try, then the park");
        assertEquals(0, counters.get(ClientCounter.CALLER_COMPLETIONS), "handed over, not completed by the caller");
    }

    @Test
    @Timeout(30)
    void shouldBeHandedTheResultWhenAnotherThreadCompletesItWhileTheCallerDrives() throws Exception
    {
        final RequestSlot requestSlot = syncGet();
        // Someone else always holds the cycle (every try answers 0); during the caller's first try, another thread
        // completes the request. The first try is the only one the caller surely makes while it drives: it drives for
        // CALLER_YIELD_NANOS of wall time, so how many tries fit is the scheduler's (at load, a wait on a tenth try
        // outlived the drive and the test hung).
        final FakeProgress driver = new FakeProgress(0, null);
        driver.onFirstTry = () ->
        {
            final Thread progressThread = new Thread(() ->
            {
                requestSlot.succeed(Status.OK, new byte[] {9}, null);
                requestSlots.complete(requestSlot);
            }, "fake-progress-thread");
            progressThread.start();
            try
            {
                progressThread.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        };

        assertArrayEquals(new byte[] {9}, requestSlots.await(requestSlot, RequestType.GET, TIMEOUT_NANOS, driver));
        assertTrue(driver.calls.get() >= 1, "the caller tried to drive while another thread cycled");
        assertEquals(0, driver.cycles.get());
        assertEquals(0, counters.get(ClientCounter.CALLER_COMPLETIONS));
    }

    @Test
    @Timeout(30)
    void shouldParkWithoutDrivingWhileOtherCallersHoldTheDriveBudget() throws Exception
    {
        final CallerDriveBudget budget = new CallerDriveBudget(1);
        final RequestSlots limited = requestSlots(budget, RequestSlots.WAIT_YIELD_NANOS);
        assertTrue(budget.tryEnter(), "another caller drives");
        final RequestSlot requestSlot = syncGet(limited);
        final FakeProgress driver = new FakeProgress(3, () -> { });
        final Thread progressThread = completeNotFoundOnceParked(limited, requestSlot);

        assertEquals(null, limited.await(requestSlot, RequestType.GET, TIMEOUT_NANOS, driver));
        progressThread.join();
        assertEquals(0, driver.calls.get(), "the budget was spent: the caller parked without polling the worker");
        assertEquals(0, counters.get(ClientCounter.CALLER_COMPLETIONS), "handed over by the progress thread");
        assertEquals(1, budget.drivers(), "the other caller's place is untouched");

        budget.exit(); // the other caller is done: the next caller drives, and gives its place back
        final RequestSlot next = syncGet(limited);
        final FakeProgress own = new FakeProgress(1, () ->
        {
            next.succeed(Status.OK, new byte[] {7}, null);
            limited.complete(next);
        });
        assertArrayEquals(new byte[] {7}, limited.await(next, RequestType.GET, TIMEOUT_NANOS, own));
        assertEquals(1, counters.get(ClientCounter.CALLER_COMPLETIONS));
        assertEquals(0, budget.drivers());
    }

    @Test
    @Timeout(30)
    void shouldSeeTheAnswerWithoutParkingWhenItComesWhileTheCallerYields() throws Exception
    {
        // No driver (tcp: the event loop completes requests): the caller yields, holding a place in the budget, for
        // a window longer than the test; the fake loop completes the request once it sees that place taken, so the
        // answer comes during the yields.
        final CallerDriveBudget budget = new CallerDriveBudget(1);
        final RequestSlots yielding = requestSlots(budget, TIMEOUT_NANOS);
        final RequestSlot requestSlot = syncGet(yielding);
        final Thread loop = new Thread(() ->
        {
            while (budget.drivers() == 0)
            {
                Thread.onSpinWait();
            }
            requestSlot.succeed(Status.OK, new byte[] {5}, null);
            yielding.complete(requestSlot);
        }, "fake-event-loop");
        loop.start();

        assertArrayEquals(new byte[] {5}, yielding.await(requestSlot, RequestType.GET, TIMEOUT_NANOS, null));
        loop.join();
        assertTrue(RequestSlots.WAIT_YIELD_NANOS > 0, "yielding is on by default");
        assertEquals(1, counters.get(ClientCounter.CALLER_YIELD_COMPLETIONS), "answered while the caller yielded");
        assertEquals(0, budget.drivers(), "the place went back");
        assertEquals(0, counters.get(ClientCounter.CALLER_COMPLETIONS), "yielding is not driving");
    }

    @Test
    @Timeout(30)
    void shouldParkRatherThanYieldWhileOtherRequestsOfTheClientAreInFlight() throws Exception
    {
        // A window longer than the test: a waiter that yielded here would never park, and the fake loop, which
        // answers only once the waiter parks, would never answer.
        final CallerDriveBudget budget = new CallerDriveBudget(1);
        final RequestSlots busy = requestSlots(budget, TIMEOUT_NANOS);
        final RequestSlot other = syncGet(busy); // another caller's request, in flight
        final RequestSlot requestSlot = syncGet(busy);
        final Thread progressThread = completeNotFoundOnceParked(busy, requestSlot);

        assertEquals(null, busy.await(requestSlot, RequestType.GET, TIMEOUT_NANOS, null));
        progressThread.join();
        assertEquals(0, counters.get(ClientCounter.CALLER_YIELD_COMPLETIONS), "parked, handed over");
        assertEquals(RequestSlot.STATE_ACTIVE, other.state);
    }

    @Test
    @Timeout(30)
    void shouldParkAtOnceWhenYieldingIsOffAndNoDriverIsGiven() throws Exception
    {
        final CallerDriveBudget budget = new CallerDriveBudget(1);
        final RequestSlots parking = requestSlots(budget, 0);
        final RequestSlot requestSlot = syncGet(parking);
        final Thread progressThread = completeNotFoundOnceParked(parking, requestSlot);

        assertEquals(null, parking.await(requestSlot, RequestType.GET, TIMEOUT_NANOS, null));
        progressThread.join();
        assertEquals(0, counters.get(ClientCounter.CALLER_YIELD_COMPLETIONS));
        assertEquals(0, budget.drivers());
    }

    @Test
    void shouldBoundTheCallersThatDriveAtOnce()
    {
        final CallerDriveBudget budget = new CallerDriveBudget(2);
        assertTrue(budget.tryEnter());
        assertTrue(budget.tryEnter());
        assertFalse(budget.tryEnter(), "two drive already");
        budget.exit();
        assertTrue(budget.tryEnter(), "a place came back");
        assertThrows(IllegalArgumentException.class, () -> new CallerDriveBudget(0));
        assertEquals(Math.max(1, Runtime.getRuntime().availableProcessors() / 2), CallerDriveBudget.SHARED.max());
    }

    /** Slots with their own drive budget and yield window. */
    private RequestSlots requestSlots(final CallerDriveBudget budget, final long waitYieldNanos)
    {
        return new RequestSlots(REQUEST_SLOTS,
            new UnsafeBuffer(ByteBuffer.allocateDirect(REQUEST_SLOTS * (RequestSlot.EXTENT_OFFSET + 64))),
            RequestSlot.EXTENT_OFFSET + 64, 64, counters, budget,
            waitYieldNanos);
    }

    /** A fake progress thread that answers NOT_FOUND once the caller parks (as the real one does after a wake-up). */
    private static Thread completeNotFoundOnceParked(final RequestSlots requestSlots, final RequestSlot requestSlot)
    {
        final Thread progressThread = new Thread(() ->
        {
            while (requestSlot.waiter.getState() != Thread.State.TIMED_WAITING)
            {
                Thread.onSpinWait();
            }
            requestSlot.succeed(Status.NOT_FOUND, null, null);
            requestSlots.complete(requestSlot);
        }, "fake-progress-thread");
        progressThread.start();
        return progressThread;
    }

    private RequestSlot syncGet()
    {
        return syncGet(requestSlots);
    }

    private static RequestSlot syncGet(final RequestSlots requestSlots)
    {
        final RequestSlot requestSlot = requestSlots.acquire(RequestSlot.TYPE_GET, System.nanoTime() + TIMEOUT_NANOS);
        requestSlot.waiter = Thread.currentThread();
        requestSlot.phase = RequestSlot.PHASE_AWAIT_RESPONSE;
        return requestSlot;
    }

    /**
     * A {@link WorkerProgress} whose {@link #tryProgress()} answers {@code answer} on every call; with a positive
     * answer it runs a cycle that, at the {@code answer}-th cycle, runs {@code completion}.
     */
    private static final class FakeProgress implements WorkerProgress
    {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger cycles = new AtomicInteger();
        private final int answer;
        private final Runnable completion;
        /** Run on the caller's thread inside its first {@link #tryProgress()}, when set. */
        Runnable onFirstTry;

        FakeProgress(final int answer, final Runnable completion)
        {
            this.answer = answer;
            this.completion = completion;
        }

        @Override
        public int tryProgress()
        {
            if (calls.incrementAndGet() == 1 && onFirstTry != null)
            {
                onFirstTry.run();
            }
            if (answer <= 0)
            {
                return answer;
            }
            if (cycles.incrementAndGet() == answer)
            {
                completion.run();
            }
            return 1;
        }

        @Override
        public boolean isProgressThread()
        {
            return false;
        }

        @Override
        public void signal()
        {
        }

        @Override
        public void close()
        {
        }
    }
}
