package io.rdmakv.transport.base;

/**
 * An endpoint's credits: how many operations may be posted and not yet completed. A credited operation gives its
 * credit back when its window completes it; sends nobody waits for are counted without an operation and give theirs
 * back by count. Under the window's lock ({@link OperationWindow#lock()}).
 */
public final class Credits
{
    private final int max;
    private int used;

    Credits(final int max)
    {
        this.max = max;
    }

    /** A credit is free. */
    public boolean available()
    {
        return used < max;
    }

    /** The operation holds a credit from now until its window completes it. */
    public void take(final Operation op)
    {
        op.credited = true;
        used++;
    }

    /** {@code count} credits taken without an operation (sends nobody waits for) come back. */
    public void giveBack(final int count)
    {
        used -= count;
    }

    /** A credit taken without an operation (a send nobody waits for). */
    void takeAnonymous()
    {
        used++;
    }

    /** A completed operation's credit, if it held one, comes back. */
    void release(final Operation op)
    {
        if (op.credited)
        {
            used--;
        }
    }

    int used()
    {
        return used;
    }
}
