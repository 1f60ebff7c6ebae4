package io.rdmakv.client.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class FreeSlotStackTest
{
    @Test
    void shouldPopWhatWasPushedLastFirstAndReportEmpty()
    {
        final FreeSlotStack stack = new FreeSlotStack(3);
        assertTrue(stack.isEmpty());
        assertEquals(-1, stack.pop());
        stack.push(0);
        stack.push(2);
        stack.push(1);
        assertEquals(1, stack.pop());
        assertEquals(2, stack.pop());
        stack.push(2);
        assertEquals(2, stack.pop());
        assertEquals(0, stack.pop());
        assertEquals(-1, stack.pop());
        assertTrue(stack.isEmpty());
    }

    @Test
    void shouldRefuseIndexesOutsideItsCapacity()
    {
        final FreeSlotStack stack = new FreeSlotStack(2);
        assertThrows(IndexOutOfBoundsException.class, () -> stack.push(2));
        assertThrows(IndexOutOfBoundsException.class, () -> stack.push(-1));
        assertThrows(IllegalArgumentException.class, () -> new FreeSlotStack(0));
    }

    /**
     * The property the request path relies on: with 16 slots and two threads that each hold at most one, a pop never
     * finds the stack empty, however the threads interleave or stall (each push and pop is one CAS). The queue this
     * replaced returned null here whenever a releasing thread was preempted between its claim and its publish.
     */
    @Test
    void shouldNeverLookEmptyWhileRequestSlotsAreFree() throws Exception
    {
        final FreeSlotStack stack = new FreeSlotStack(16);
        for (int i = 0; i < 16; i++)
        {
            stack.push(i);
        }
        final AtomicLong emptyPops = new AtomicLong();
        final AtomicIntegerArray owner = new AtomicIntegerArray(16);
        final AtomicLong doubleOwned = new AtomicLong();
        runThreads(4, 200_000, () ->
        {
            final int i = stack.pop();
            if (i < 0)
            {
                emptyPops.incrementAndGet();
                return;
            }
            if (!owner.compareAndSet(i, 0, 1))
            {
                doubleOwned.incrementAndGet();
            }
            owner.set(i, 0);
            stack.push(i);
        });
        assertEquals(0, emptyPops.get(), "pops that found no free slot while at least 12 were free");
        assertEquals(0, doubleOwned.get(), "slots handed to two threads at once");
        assertEquals(Set.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), drain(stack));
    }

    /** Threads take and give back more slots than there are: each slot is owned by one thread at a time, none lost. */
    @Test
    void shouldHandEachRequestSlotToOneOwnerAndLoseNoneUnderContention() throws Exception
    {
        final int capacity = 4;
        final FreeSlotStack stack = new FreeSlotStack(capacity);
        for (int i = 0; i < capacity; i++)
        {
            stack.push(i);
        }
        final AtomicIntegerArray owner = new AtomicIntegerArray(capacity);
        final AtomicLong doubleOwned = new AtomicLong();
        final AtomicLong taken = new AtomicLong();
        runThreads(6, 100_000, () ->
        {
            final int a = stack.pop();
            final int b = stack.pop();
            for (final int i : new int[] {a, b})
            {
                if (i >= 0)
                {
                    taken.incrementAndGet();
                    if (!owner.compareAndSet(i, 0, 1))
                    {
                        doubleOwned.incrementAndGet();
                    }
                }
            }
            for (final int i : new int[] {b, a})
            {
                if (i >= 0)
                {
                    owner.set(i, 0);
                    stack.push(i);
                }
            }
        });
        assertEquals(0, doubleOwned.get(), "slots handed to two threads at once");
        assertTrue(taken.get() > 0, "some pops succeeded");
        assertEquals(Set.of(0, 1, 2, 3), drain(stack), "every slot back on the stack exactly once");
    }

    private static Set<Integer> drain(final FreeSlotStack stack)
    {
        final Set<Integer> seen = new HashSet<>();
        for (int i = stack.pop(); i >= 0; i = stack.pop())
        {
            assertTrue(seen.add(i), "index " + i + " twice on the stack");
        }
        return seen;
    }

    private static void runThreads(final int threads, final int iterations, final Runnable step) throws Exception
    {
        final CyclicBarrier start = new CyclicBarrier(threads);
        final List<Thread> all = new ArrayList<>();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            final Thread thread = new Thread(() ->
            {
                try
                {
                    start.await();
                    for (int n = 0; n < iterations; n++)
                    {
                        step.run();
                    }
                }
                catch (final Throwable ex)
                {
                    failures.add(ex);
                }
            });
            thread.start();
            all.add(thread);
        }
        for (final Thread thread : all)
        {
            thread.join();
        }
        assertEquals(List.of(), failures);
    }
}
