package io.rdmakv.client.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The indexes of the free {@link RequestSlot}s: a lock-free LIFO stack (Treiber's), with a version in the top word
 * so a pop that raced a pop and a push of the same index fails its CAS instead of corrupting the stack (ABA).
 *
 * <pre>
 *   top (u64)  = version (high 32 bits) | index + 1 (low 32 bits; 0 = empty)
 *   next[i]    = index + 1 of the request slot below request slot i (0 = bottom)
 *   push(i)    : next[i] = top's index; CAS top -> (version + 1, i)      retried until it lands
 *   pop()      : i = top's index; CAS top -> (version + 1, next[i])       retried until it lands; -1 when empty
 * </pre>
 * A push or a pop is one CAS on one word, so a thread stalled anywhere never hides a free request slot from another.
 * Agrona's {@code ManyToManyConcurrentArrayQueue}, the free list before, did: its {@code poll} returns null while the
 * head element is claimed but not yet published (benchmarks/RESULTS.md, "Session 13"). LIFO also reuses the request
 * slot released last, whose cache lines are likely still warm.
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

    /** Put {@code index} on top; it must not be on the stack (each request slot is released once per acquire). */
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

    /**
     * The index on top, taken off the stack, or -1 when the stack was empty when its top was read.
     *
     * <p>{@code next[index]} is read after the top (a volatile read), so it is the value the push that published
     * {@code index} wrote, or a later one, which only a later push of {@code index} can write, after a pop of it that
     * changed the version: then the CAS fails and the pop retries.
     */
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

    private static long nextVersion(final long t)
    {
        return ((t >>> 32) + 1) << 32;
    }
}
