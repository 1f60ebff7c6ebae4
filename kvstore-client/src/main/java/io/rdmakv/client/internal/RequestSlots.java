package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.transport.WorkerProgress;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.LockSupport;

/**
 * The pool of {@link RequestSlot}s: bounds the requests in flight, maps correlation ids back to slots without a map
 * (the id carries the slot index), and hands results over to a waiting caller or a future.
 *
 * <pre>
 *   correlation id (u64) = send sequence (48 bits) | slot index (16 bits)
 * </pre>
 * A new id is taken for every send, so a late answer to an earlier send of the same slot is recognised as stale.
 */
final class RequestSlots
{
    private static final int INDEX_BITS = 16;
    private static final int INDEX_MASK = (1 << INDEX_BITS) - 1;
    private static final AtomicIntegerFieldUpdater<RequestSlot> PHASE =
        AtomicIntegerFieldUpdater.newUpdater(RequestSlot.class, "phase");
    /**
     * How long a synchronous caller drives progress between busy polls with {@link Thread#onSpinWait()}: 1 ms covers
     * a one-sided GET and an RPC GET with room to spare on hardware (a few us) and under SoftRoCE emulation (100 us to
     * 1 ms), so those complete on the caller with no wake-up at all.
     */
    static final long CALLER_SPIN_NANOS = 1_000_000;
    /**
     * Until then the caller keeps driving but yields between polls, so a caller waiting for something slower (a PUT's
     * group commit, a loaded server) does not keep a core from the threads that produce its answer; past it, a
     * wake-up's tens of microseconds are noise beside the wait, and the caller parks as before (no CPU) until the
     * progress thread completes the request.
     */
    static final long CALLER_YIELD_NANOS = 10_000_000;
    /** The default of {@link #WAIT_YIELD_NANOS}, in us. */
    static final int DEFAULT_WAIT_YIELD_MICROS = 300;
    /**
     * How long a synchronous caller whose worker it cannot drive (tcp: the event loop reads the answer and completes
     * the request) waits by yielding before it parks ({@value #DEFAULT_WAIT_YIELD_MICROS} us unless the JVM property
     * {@code rdmakv.client.waitYieldMicros} says otherwise; 0: park at once). An answer that comes within it needs no
     * unpark: one thread hand-off per request (the loop's), as a blocking client's read has, instead of two. An RPC
     * over loopback tcp takes 20-80 us on this project's hosts; a yield gives the core to any thread that needs it,
     * and only {@link CallerDriveBudget} callers (half the cores) wait this way at once, the others park.
     */
    static final long WAIT_YIELD_NANOS = TimeUnit.MICROSECONDS.toNanos(Integer.getInteger(
        "rdmakv.client.waitYieldMicros", DEFAULT_WAIT_YIELD_MICROS));

    private final RequestSlot[] requestSlots;
    private final FreeSlotStack free;
    private final ClientCounters counters;
    private final CallerDriveBudget driveBudget;
    private final long waitYieldNanos;
    /** Slots taken and not yet released: a waiter yields only while its own request is the client's one in flight. */
    private final AtomicInteger active = new AtomicInteger();
    private final WriteSequencer writes;
    /** Told after every release (the request queue waits for free slots); nothing until set. */
    private volatile Runnable onRelease = () -> { };

    RequestSlots(final int count, final UnsafeBuffer readMemory, final int requestSlotStride, final int extentCapacity,
        final ClientCounters counters)
    {
        this(count, readMemory, requestSlotStride, extentCapacity, counters, CallerDriveBudget.SHARED);
    }

    /** @param driveBudget how many callers may drive progress at once (tests give their own). */
    RequestSlots(final int count, final UnsafeBuffer readMemory, final int requestSlotStride, final int extentCapacity,
        final ClientCounters counters, final CallerDriveBudget driveBudget)
    {
        this(count, readMemory, requestSlotStride, extentCapacity, counters, driveBudget, WAIT_YIELD_NANOS);
    }

    /** @param waitYieldNanos how long a caller that cannot drive yields before it parks ({@link #WAIT_YIELD_NANOS}). */
    RequestSlots(final int count, final UnsafeBuffer readMemory, final int requestSlotStride, final int extentCapacity,
        final ClientCounters counters, final CallerDriveBudget driveBudget, final long waitYieldNanos)
    {
        this.driveBudget = driveBudget;
        this.waitYieldNanos = waitYieldNanos;
        if (count > INDEX_MASK + 1)
        {
            throw new IllegalArgumentException("at most " + (INDEX_MASK + 1) + " requests in flight, got " + count);
        }
        this.counters = counters;
        this.requestSlots = new RequestSlot[count];
        this.free = new FreeSlotStack(count);
        for (int i = 0; i < count; i++)
        {
            final UnsafeBuffer view = new UnsafeBuffer(readMemory, i * requestSlotStride, requestSlotStride);
            requestSlots[i] = new RequestSlot(i, view, extentCapacity);
        }
        for (int i = count - 1; i >= 0; i--)
        {
            free.push(i); // slot 0 on top
        }
        this.writes = new WriteSequencer(requestSlots);
    }

    /** Numbers writes for at-most-once retries. */
    WriteSequencer writes()
    {
        return writes;
    }

    int capacity()
    {
        return requestSlots.length;
    }

    RequestSlot requestSlot(final int index)
    {
        return requestSlots[index];
    }

    void onRelease(final Runnable onRelease)
    {
        this.onRelease = onRelease;
    }

    /**
     * Take a free slot if there is one, never waiting (asynchronous requests).
     *
     * @return the slot, already {@link RequestSlot#STATE_ACTIVE}, or {@code null} when all are in flight.
     */
    RequestSlot tryAcquire(final int type, final long deadlineNanos)
    {
        final int index = free.pop();
        if (index < 0)
        {
            return null;
        }
        active.incrementAndGet();
        final RequestSlot requestSlot = requestSlots[index];
        requestSlot.reset(type, deadlineNanos);
        requestSlot.state = RequestSlot.STATE_ACTIVE;
        return requestSlot;
    }

    /**
     * Take a free slot, waiting (spin, then park) while all are in flight: that is the client's back-pressure.
     *
     * @return the slot, already {@link RequestSlot#STATE_ACTIVE}, or {@code null} when {@code deadlineNanos} passed.
     */
    RequestSlot acquire(final int type, final long deadlineNanos)
    {
        int index = free.pop();
        int spins = 0;
        while (index < 0)
        {
            if (System.nanoTime() - deadlineNanos > 0)
            {
                return null;
            }
            if (++spins < 100)
            {
                Thread.onSpinWait();
            }
            else
            {
                LockSupport.parkNanos(20_000);
            }
            index = free.pop();
        }
        active.incrementAndGet();
        final RequestSlot requestSlot = requestSlots[index];
        requestSlot.reset(type, deadlineNanos);
        requestSlot.state = RequestSlot.STATE_ACTIVE;
        return requestSlot;
    }

    void release(final RequestSlot requestSlot)
    {
        requestSlot.writeSequence = 0; // answered: never sent again, so the completed-below mark may pass it
        requestSlot.session = null;
        requestSlot.call = null;
        requestSlot.waiter = null;
        requestSlot.state = RequestSlot.STATE_FREE;
        active.decrementAndGet();
        free.push(requestSlot.index);
        onRelease.run();
    }

    /** A fresh correlation id for the next send of {@code requestSlot}. */
    long nextCorrelationId(final RequestSlot requestSlot)
    {
        requestSlot.generation++;
        requestSlot.correlationId = (requestSlot.generation << INDEX_BITS) | requestSlot.index;
        return requestSlot.correlationId;
    }

    /** The slot waiting for an answer with this id, or {@code null} when none is (stale or garbage id). */
    RequestSlot awaiting(final long correlationId)
    {
        final int index = (int)(correlationId & INDEX_MASK);
        if (index >= requestSlots.length)
        {
            return null;
        }
        final RequestSlot requestSlot = requestSlots[index];
        return requestSlot.phase == RequestSlot.PHASE_AWAIT_RESPONSE && requestSlot.correlationId == correlationId ? requestSlot : null;
    }

    /**
     * Move a slot out of {@code expected}; only the one thread that wins may complete it. Answers, timeouts and send
     * failures race for slots waiting for an answer.
     */
    static boolean claim(final RequestSlot requestSlot, final int expected)
    {
        return PHASE.compareAndSet(requestSlot, expected, RequestSlot.PHASE_IDLE);
    }

    /**
     * Hand the result over: complete the future (and free the slot) or wake the waiting caller (who frees it). A slot
     * whose caller gave up is freed here. Must be called exactly once per request, with no read in flight.
     */
    void complete(final RequestSlot requestSlot)
    {
        requestSlot.phase = RequestSlot.PHASE_IDLE;
        if (requestSlot.failure != null)
        {
            counters.increment(ClientCounter.FAILURES);
            if (requestSlot.failure.error() == KvError.TIMED_OUT)
            {
                counters.increment(ClientCounter.TIMEOUTS);
            }
        }
        final AsyncCall<?> call = requestSlot.call;
        if (call != null)
        {
            call.capture(requestSlot);
            requestSlot.markDone();
            // Free the slot before completing: dependent stages may issue new requests at once.
            release(requestSlot);
            call.deliver();
        }
        else
        {
            final Thread waiter = requestSlot.waiter;
            if (requestSlot.markDone())
            {
                if (waiter == Thread.currentThread())
                {
                    counters.increment(ClientCounter.CALLER_COMPLETIONS); // it drove progress itself: no wake-up
                }
                else
                {
                    LockSupport.unpark(waiter);
                }
            }
            else
            {
                release(requestSlot);
            }
        }
    }

    /**
     * Wait for a synchronous request and return its outcome, freeing the slot. The worker's timeouts complete every
     * request; the extra {@code slackNanos} only guards against a stopped worker, so the caller never hangs.
     *
     * <pre>
     *   driver given (caller-driven progress: verbs, shm) and a place in the {@link CallerDriveBudget}:
     *     0 .. CALLER_SPIN_NANOS             driver.tryProgress(); Thread.onSpinWait()   the answer is polled and its
     *     .. CALLER_YIELD_NANOS              driver.tryProgress(); Thread.yield()        callback run on this thread
     *     later                              park, as below
     *   no driver (tcp, or progress.callerDriven off), or tryProgress() == -1, a place in the budget, and this
     *   request the client's only one in flight ({@link #alone()}):
     *     .. WAIT_YIELD_NANOS                Thread.yield()      the progress thread completes the request and this
     *                                                            caller sees it with no unpark (yieldCompletions)
     *   then, or with no place in the budget (half the cores' worth of callers drive or yield already):
     *     200 x Thread.onSpinWait(), then park (at most 1 ms at a time) until the progress thread unparks it
     * </pre>
     * A failed {@code tryProgress} (0: the progress thread or another caller is cycling) just spins again: whoever
     * cycles completes this request too.
     *
     * @param type   the request's type, which turns the slot's result into what the API returns.
     * @param driver the client's progress when this caller may drive it, or {@code null}.
     */
    <T> T await(final RequestSlot requestSlot, final RequestType<T> type, final long slackNanos, final WorkerProgress driver)
    {
        final long giveUp = requestSlot.deadlineNanos + slackNanos;
        if ((driver != null || waitYieldNanos > 0) && driveBudget.tryEnter())
        {
            try
            {
                if ((driver == null || !drive(requestSlot, driver)) && alone() && yieldWait(requestSlot))
                {
                    counters.increment(ClientCounter.CALLER_YIELD_COMPLETIONS);
                }
            }
            finally
            {
                driveBudget.exit();
            }
        }
        int spins = 0;
        while (requestSlot.state == RequestSlot.STATE_ACTIVE)
        {
            if (++spins < 200)
            {
                Thread.onSpinWait();
                continue;
            }
            final long left = giveUp - System.nanoTime();
            if (left <= 0)
            {
                if (requestSlot.abandon())
                {
                    counters.increment(ClientCounter.FAILURES);
                    counters.increment(ClientCounter.TIMEOUTS);
                    throw KvException.of(KvError.TIMED_OUT, requestSlot.describe() + " got no answer in time " +
                        "(the client's progress thread did not complete it)");
                }
                break;
            }
            LockSupport.parkNanos(requestSlot, Math.min(left, 1_000_000));
        }
        try
        {
            return type.outcome(requestSlot);
        }
        finally
        {
            release(requestSlot);
        }
    }

    /**
     * Yield while the slot is active, for at most {@code waitYieldNanos}; true when it was completed meanwhile (by
     * the thread that progresses the worker: no unpark needed).
     */
    private boolean yieldWait(final RequestSlot requestSlot)
    {
        final long start = System.nanoTime();
        while (requestSlot.state == RequestSlot.STATE_ACTIVE)
        {
            if (System.nanoTime() - start >= waitYieldNanos)
            {
                return false;
            }
            Thread.yield();
        }
        return true;
    }

    /**
     * Run duty cycles on this thread while the slot is active, within the caller's bound (see {@link #await}).
     *
     * @return false when the worker cannot be driven by callers (its progress answered -1), true otherwise.
     */
    private static boolean drive(final RequestSlot requestSlot, final WorkerProgress driver)
    {
        final long start = System.nanoTime();
        while (requestSlot.state == RequestSlot.STATE_ACTIVE)
        {
            if (driver.tryProgress() < 0)
            {
                return false;
            }
            if (requestSlot.state != RequestSlot.STATE_ACTIVE)
            {
                return true;
            }
            final long elapsed = System.nanoTime() - start;
            if (elapsed < CALLER_SPIN_NANOS)
            {
                Thread.onSpinWait();
            }
            else if (elapsed < CALLER_YIELD_NANOS)
            {
                Thread.yield();
            }
            else
            {
                return true;
            }
        }
        return true;
    }

    /**
     * True while at most one request of this client is in flight: only then does a waiter yield rather than park. With
     * many callers (YCSB at 16 threads) the thread that completes their requests needs the core a yielding waiter
     * would keep (on two cores, YCSB A at 16 threads: 0.46x redis with waiters yielding, 0.53x on the base parking
     * them, 0.55x with this rule), and each of them is unparked anyway.
     */
    boolean alone()
    {
        return active.get() <= 1;
    }

    /** How many callers may drive progress at once (shared with waits on async futures, {@link DrivenFuture}). */
    CallerDriveBudget driveBudget()
    {
        return driveBudget;
    }

    /** Fail every request still active (client closing, worker stopped). Call only with the worker stopped. */
    void failAll(final KvError error, final String message)
    {
        for (final RequestSlot requestSlot : requestSlots)
        {
            if (requestSlot.state == RequestSlot.STATE_ACTIVE && requestSlot.phase != RequestSlot.PHASE_IDLE)
            {
                requestSlot.fail(error, message);
                complete(requestSlot);
            }
        }
    }
}
