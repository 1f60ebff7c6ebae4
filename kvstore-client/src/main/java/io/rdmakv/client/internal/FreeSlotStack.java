package io.rdmakv.client.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The indexes of the free {@link RequestSlot}s: a lock-free LIFO stack (Treiber's), with a version in the top word
 * so a pop that raced a pop and a push of the same index fails its CAS instead of corrupting the stack (ABA).
 *
 * <pre>
 *   top (u64)  = version (high 32 bits) | index + 1 (low 32 bits; 0 = empty)
 *   next[i]    = index + 1 of the slot below slot i (0 = bottom)
 *   push(i)    : next[i] = top's index; CAS top -> (version + 1, i)      retried until it lands
 *   pop()      : i = top's index; CAS top -> (version + 1, next[i])       retried until it lands; -1 when empty
 * </pre>
 *
 * <p>Why not a bounded MPMC queue: Agrona's {@code ManyToManyConcurrentArrayQueue} (the free list before this class)
 * claims a position with one CAS and publishes it with a later store, and its {@code poll} returns {@code null} while
 * the element at the head is claimed but not yet published. A releasing thread preempted between the two (two cores,
 * more runnable threads than cores) hid every free slot behind it: with 16 slots and two caller threads holding at
 * most one each, 12% of async GETs found "no free slot" and took the request queue's thread instead (2026-12-03, see
 * benchmarks/RESULTS.md). Here a push or a pop is a single CAS on one word, so a stalled thread never hides a free
 * slot from another: {@link #pop()} returns -1 only when the stack was empty at the moment it read the top.
 *
 * <p>Memory order: a push writes {@code next[i]} before the CAS that publishes {@code i} (a volatile write); a pop
 * reads the top (a volatile read) before {@code next[i]}, so it sees that write, or a later one that only a later push
 * of {@code i} can make, after a pop of {@code i} that changed the version, so its CAS fails and it retries. LIFO
 * also hands out the slot released last, whose cache lines are likely still warm on the releasing core.
 */
final class FreeSlotStack
{
    private static final VarHandle TOP;

    static
    {
        try
        {
            TOP = MethodHandles.lookup().findVarHandle(FreeSlotStack.class, "top", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final int[] next;
    @SuppressWarnings("unused") // through TOP
    private volatile long top;

    /** An empty stack for indexes {@code 0 .. capacity - 1}. */
    FreeSlotStack(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.next = new int[capacity];
    }

    /** Put {@code index} on top; it must not be on the stack already (each slot is released once per acquire). */
    void push(final int index)
    {
        if (index < 0 || index >= next.length)
        {
            throw new IndexOutOfBoundsException("slot index " + index + " of " + next.length);
        }
        while (true)
        {
            final long t = top;
            next[index] = (int)t;
            if (TOP.compareAndSet(this, t, nextVersion(t) | (index + 1)))
            {
                return;
            }
            Thread.onSpinWait();
        }
    }

    /** The index on top, taken off the stack, or -1 when the stack is empty. */
    int pop()
    {
        while (true)
        {
            final long t = top;
            final int index = (int)t - 1;
            if (index < 0)
            {
                return -1;
            }
            final int below = next[index];
            if (TOP.compareAndSet(this, t, nextVersion(t) | (below & 0xFFFF_FFFFL)))
            {
                return index;
            }
            Thread.onSpinWait();
        }
    }

    /** Whether the stack was empty when read (a snapshot). */
    boolean isEmpty()
    {
        return (int)top == 0;
    }

    int capacity()
    {
        return next.length;
    }

    private static long nextVersion(final long t)
    {
        return ((t >>> 32) + 1) << 32;
    }
}
