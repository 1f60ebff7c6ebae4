package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.CompletableFuture;
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

    private final RequestSlot[] slots;
    private final ManyToManyConcurrentArrayQueue<RequestSlot> free;
    private final ClientCounters counters;

    RequestSlots(final int count, final UnsafeBuffer readMemory, final int slotStride, final int extentCapacity,
        final OneSidedGetProtocol getProtocol, final ClientCounters counters)
    {
        if (count > INDEX_MASK + 1)
        {
            throw new IllegalArgumentException("at most " + (INDEX_MASK + 1) + " requests in flight, got " + count);
        }
        this.counters = counters;
        this.slots = new RequestSlot[count];
        this.free = new ManyToManyConcurrentArrayQueue<>(count);
        for (int i = 0; i < count; i++)
        {
            final UnsafeBuffer view = new UnsafeBuffer(readMemory, i * slotStride, slotStride);
            slots[i] = new RequestSlot(i, view, extentCapacity, getProtocol);
            free.offer(slots[i]);
        }
    }

    int capacity()
    {
        return slots.length;
    }

    RequestSlot slot(final int index)
    {
        return slots[index];
    }

    /**
     * Take a free slot, waiting (spin, then park) while all are in flight: that is the client's back-pressure.
     *
     * @return the slot, already {@link RequestSlot#STATE_ACTIVE}, or {@code null} when {@code deadlineNanos} passed.
     */
    RequestSlot acquire(final int type, final long deadlineNanos)
    {
        RequestSlot slot = free.poll();
        int spins = 0;
        while (slot == null)
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
            slot = free.poll();
        }
        slot.reset(type, deadlineNanos);
        slot.state = RequestSlot.STATE_ACTIVE;
        return slot;
    }

    void release(final RequestSlot slot)
    {
        slot.session = null;
        slot.future = null;
        slot.waiter = null;
        slot.state = RequestSlot.STATE_FREE;
        free.offer(slot);
    }

    /** A fresh correlation id for the next send of {@code slot}. */
    long nextCorrelationId(final RequestSlot slot)
    {
        slot.generation++;
        slot.correlationId = (slot.generation << INDEX_BITS) | slot.index;
        return slot.correlationId;
    }

    /** The slot waiting for an answer with this id, or {@code null} when none is (stale or garbage id). */
    RequestSlot awaiting(final long correlationId)
    {
        final int index = (int)(correlationId & INDEX_MASK);
        if (index >= slots.length)
        {
            return null;
        }
        final RequestSlot slot = slots[index];
        return slot.phase == RequestSlot.PHASE_AWAIT_RESPONSE && slot.correlationId == correlationId ? slot : null;
    }

    /**
     * Move a slot out of {@code expected}; only the one thread that wins may complete it. Answers, timeouts and send
     * failures race for slots waiting for an answer.
     */
    static boolean claim(final RequestSlot slot, final int expected)
    {
        return PHASE.compareAndSet(slot, expected, RequestSlot.PHASE_IDLE);
    }

    /**
     * Hand the result over: complete the future (and free the slot) or wake the waiting caller (who frees it). A slot
     * whose caller gave up is freed here. Must be called exactly once per request, with no read in flight.
     */
    void complete(final RequestSlot slot)
    {
        slot.phase = RequestSlot.PHASE_IDLE;
        if (slot.failure != null)
        {
            counters.increment(ClientCounter.FAILURES);
            if (slot.failure.error() == KvError.TIMED_OUT)
            {
                counters.increment(ClientCounter.TIMEOUTS);
            }
        }
        final CompletableFuture<Object> future = slot.future;
        if (future != null)
        {
            Object outcome = null;
            KvException error = null;
            try
            {
                outcome = slot.outcome();
            }
            catch (final KvException ex)
            {
                error = ex;
            }
            slot.markDone();
            // Free the slot before completing: dependent stages may issue new requests at once.
            release(slot);
            if (error == null)
            {
                future.complete(outcome);
            }
            else
            {
                future.completeExceptionally(error);
            }
        }
        else
        {
            final Thread waiter = slot.waiter;
            if (slot.markDone())
            {
                LockSupport.unpark(waiter);
            }
            else
            {
                release(slot);
            }
        }
    }

    /**
     * Wait for a synchronous request and return its outcome, freeing the slot. The worker's timeouts complete every
     * request; the extra {@code slackNanos} only guards against a stopped worker, so the caller never hangs.
     */
    Object await(final RequestSlot slot, final long slackNanos)
    {
        final long giveUp = slot.deadlineNanos + slackNanos;
        int spins = 0;
        while (slot.state == RequestSlot.STATE_ACTIVE)
        {
            if (++spins < 200)
            {
                Thread.onSpinWait();
                continue;
            }
            final long left = giveUp - System.nanoTime();
            if (left <= 0)
            {
                if (slot.abandon())
                {
                    counters.increment(ClientCounter.FAILURES);
                    counters.increment(ClientCounter.TIMEOUTS);
                    throw new KvException(KvError.TIMED_OUT, slot.describe() + " got no answer in time " +
                        "(the client's progress thread did not complete it)");
                }
                break;
            }
            LockSupport.parkNanos(slot, Math.min(left, 1_000_000));
        }
        try
        {
            return slot.outcome();
        }
        finally
        {
            release(slot);
        }
    }

    /** Fail every request still active (client closing, worker stopped). Call only with the worker stopped. */
    void failAll(final KvError error, final String message)
    {
        for (final RequestSlot slot : slots)
        {
            if (slot.state == RequestSlot.STATE_ACTIVE && slot.phase != RequestSlot.PHASE_IDLE)
            {
                slot.fail(error, message);
                complete(slot);
            }
        }
    }
}
