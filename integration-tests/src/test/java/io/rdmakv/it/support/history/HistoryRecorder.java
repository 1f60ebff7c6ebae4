package io.rdmakv.it.support.history;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Records a concurrent history of register operations as clients run them: {@link #invoke} before sending,
 * then exactly one of {@link #ok}, {@link #okRead}, {@link #okDelete}, {@link #okConditional}, {@link #okIncrement},
 * {@link #fail} or {@link #timeout} when the answer (or none) comes.
 * Times come from one monotonic clock ({@link System#nanoTime()} unless a test injects another), so the real-time
 * order of operations across threads of this JVM is exact. Thread-safe; recording is a short synchronized append.
 *
 * <p>An operation never completed when {@link #history()} is taken counts as a timeout: it may have happened.
 */
public final class HistoryRecorder
{
    private final LongSupplier clock;
    private final List<Open> operations = new ArrayList<>();

    public HistoryRecorder()
    {
        this(System::nanoTime);
    }

    /** A recorder timing operations with {@code clock} (monotonic nanoseconds). */
    public HistoryRecorder(final LongSupplier clock)
    {
        this.clock = clock;
    }

    /** A PUT of {@code value} is about to be sent; returns the operation's handle. */
    public int invokePut(final int process, final String key, final String value)
    {
        return invoke(process, Operation.Kind.PUT, key, value);
    }

    /** A GET is about to be sent; returns the operation's handle. */
    public int invokeGet(final int process, final String key)
    {
        return invoke(process, Operation.Kind.GET, key, null);
    }

    /** A DELETE is about to be sent; returns the operation's handle. */
    public int invokeDelete(final int process, final String key)
    {
        return invoke(process, Operation.Kind.DELETE, key, null);
    }

    /** A putIfAbsent of {@code value} is about to be sent. */
    public int invokePutIfAbsent(final int process, final String key, final String value)
    {
        return invoke(process, Operation.Kind.PUT_IF_ABSENT, key, value, null);
    }

    /** A replace is about to be sent: {@code value} if the key holds {@code expected} (the value of its version). */
    public int invokeReplace(final int process, final String key, final String expected, final String value)
    {
        return invoke(process, Operation.Kind.REPLACE, key, value, expected);
    }

    /** A delete conditioned on the key holding {@code expected} (the value of its version) is about to be sent. */
    public int invokeDeleteIf(final int process, final String key, final String expected)
    {
        return invoke(process, Operation.Kind.DELETE_IF, key, null, expected);
    }

    /** An increment by {@code delta} is about to be sent. */
    public int invokeIncrement(final int process, final String key, final long delta)
    {
        return invoke(process, Operation.Kind.INCREMENT, key, null, Long.toString(delta));
    }

    /** The conditional write {@code handle} was answered: applied, or refused. */
    public void okConditional(final int handle, final boolean applied)
    {
        final long now = clock.getAsLong();
        synchronized (this)
        {
            final Open o = open(handle, Operation.Kind.PUT_IF_ABSENT, Operation.Kind.REPLACE, Operation.Kind.DELETE_IF);
            o.outcome = Operation.Outcome.OK;
            o.completeNanos = now;
            o.applied = applied;
        }
    }

    /** The increment {@code handle} answered {@code newValue}. */
    public void okIncrement(final int handle, final long newValue)
    {
        final long now = clock.getAsLong();
        synchronized (this)
        {
            final Open o = open(handle, Operation.Kind.INCREMENT);
            o.outcome = Operation.Outcome.OK;
            o.completeNanos = now;
            o.value = Long.toString(newValue);
        }
    }

    private Open open(final int handle, final Operation.Kind... kinds)
    {
        final Open o = operations.get(handle);
        if (o.outcome != null)
        {
            throw new IllegalStateException("operation " + handle + " already completed as " + o.outcome);
        }
        if (!java.util.List.of(kinds).contains(o.kind))
        {
            throw new IllegalArgumentException("operation " + handle + " is a " + o.kind + ", not one of " +
                java.util.List.of(kinds));
        }
        return o;
    }

    /** The write {@code handle} was acknowledged. */
    public void ok(final int handle)
    {
        complete(handle, Operation.Outcome.OK, null, false);
    }

    /** The read {@code handle} answered {@code value} (null: the key was absent). */
    public void okRead(final int handle, final String value)
    {
        complete(handle, Operation.Outcome.OK, value, true);
    }

    /** The DELETE {@code handle} was acknowledged: it found the key and deleted it, or found it absent. */
    public void okDelete(final int handle, final boolean found)
    {
        complete(handle, Operation.Outcome.OK, found ? Operation.DELETE_FOUND : Operation.DELETE_ABSENT, false);
    }

    /** The operation surely did not take effect (refused before it could). */
    public void fail(final int handle)
    {
        complete(handle, Operation.Outcome.FAIL, null, false);
    }

    /** No answer came: the operation may or may not have taken effect. */
    public void timeout(final int handle)
    {
        complete(handle, Operation.Outcome.TIMEOUT, null, false);
    }

    /** The history so far; operations still open are reported as timeouts. */
    public synchronized List<Operation> history()
    {
        final List<Operation> out = new ArrayList<>(operations.size());
        for (int i = 0; i < operations.size(); i++)
        {
            final Open o = operations.get(i);
            final Operation.Outcome outcome = o.outcome == null ? Operation.Outcome.TIMEOUT : o.outcome;
            final long complete = outcome == Operation.Outcome.TIMEOUT ? Long.MAX_VALUE : o.completeNanos;
            out.add(new Operation(i, o.process, o.kind, o.key, o.value, outcome, o.invokeNanos, complete, o.expected,
                outcome == Operation.Outcome.OK ? o.applied : null));
        }
        return out;
    }

    /** Operations recorded so far. */
    public synchronized int size()
    {
        return operations.size();
    }

    private int invoke(final int process, final Operation.Kind kind, final String key, final String value)
    {
        return invoke(process, kind, key, value, null);
    }

    private int invoke(final int process, final Operation.Kind kind, final String key, final String value,
        final String expected)
    {
        if (key == null)
        {
            throw new IllegalArgumentException("key must not be null");
        }
        final long now = clock.getAsLong();
        synchronized (this)
        {
            final Open o = new Open(process, kind, key, value, now);
            o.expected = expected;
            operations.add(o);
            return operations.size() - 1;
        }
    }

    private void complete(final int handle, final Operation.Outcome outcome, final String readValue,
        final boolean isRead)
    {
        final long now = clock.getAsLong();
        synchronized (this)
        {
            final Open o = operations.get(handle);
            if (o.outcome != null)
            {
                throw new IllegalStateException("operation " + handle + " already completed as " + o.outcome);
            }
            if (readValue != null && !isRead && o.kind != Operation.Kind.DELETE)
            {
                throw new IllegalArgumentException("operation " + handle + " is a " + o.kind + ": okDelete() is for a DELETE");
            }
            if (outcome == Operation.Outcome.OK && isRead != (o.kind == Operation.Kind.GET))
            {
                throw new IllegalArgumentException("operation " + handle + " is a " + o.kind
                    + (isRead ? ": use ok(), not okRead()" : ": use okRead() with the value read"));
            }
            o.outcome = outcome;
            o.completeNanos = now;
            if (isRead || o.kind == Operation.Kind.DELETE && readValue != null)
            {
                o.value = readValue;
            }
        }
    }

    private static final class Open
    {
        final int process;
        final Operation.Kind kind;
        final String key;
        final long invokeNanos;
        String value;
        String expected;
        Boolean applied;
        Operation.Outcome outcome;
        long completeNanos;

        Open(final int process, final Operation.Kind kind, final String key, final String value, final long invokeNanos)
        {
            this.process = process;
            this.kind = kind;
            this.key = key;
            this.value = value;
            this.invokeNanos = invokeNanos;
        }
    }
}
