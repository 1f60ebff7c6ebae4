package io.rdmakv.it.support.history;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The linearizability search for one key's register: Wing and Gong's algorithm with Lowe's just-in-time
 * linearization and memoisation of (set of linearized operations, register value), as Porcupine and Knossos do.
 *
 * <p>Events (invocations, and completions of acknowledged operations) sit in one doubly linked list in time order;
 * the search walks it, linearizes an invocation when the register allows it (a GET must read the current value),
 * lifts it out of the list and starts over (the register's next value is the operation's
 * {@link Operation#apply}); reaching a completion whose operation is not linearized yet means the
 * last choice was wrong, so it backtracks. A configuration already seen is never explored again. Timed-out writes
 * have no completion event: they may be linearized anywhere after their invocation, or never. The search ends with a
 * linearization once every acknowledged operation is placed, with none once it backtracks past the first choice, or
 * unknown after {@code maxSteps} steps (the search is NP-complete in general; bounded, it never hangs a test).
 */
final class RegisterSearch
{
    /** How a search ended. */
    enum Verdict
    {
        LINEARIZABLE, NOT_LINEARIZABLE, UNKNOWN
    }

    /**
     * @param verdict      the answer.
     * @param steps        search steps taken.
     * @param stuckAt      when not linearizable: the acknowledged operation the deepest attempt could not place
     *                     (null otherwise).
     * @param deepestOrder the operations of that deepest attempt, in linearization order.
     */
    record Result(Verdict verdict, long steps, Operation stuckAt, List<Operation> deepestOrder)
    {
    }

    private RegisterSearch()
    {
    }

    /**
     * Search a linearization of {@code ops} (one key; FAIL operations and timed-out GETs already removed) from an
     * absent register.
     */
    static Result search(final List<Operation> ops, final long maxSteps)
    {
        final Entry head = buildList(ops);
        final int n = ops.size();
        int remainingOk = 0;
        for (final Operation op : ops)
        {
            if (op.outcome() == Operation.Outcome.OK)
            {
                remainingOk++;
            }
        }
        final BitSet linearized = new BitSet(n);
        final Set<Config> seen = new HashSet<>();
        final ArrayDeque<Frame> stack = new ArrayDeque<>();
        String state = null;
        Entry entry = head.next;
        long steps = 0;
        int deepest = -1;
        Operation stuckAt = null;
        List<Operation> deepestOrder = List.of();
        while (remainingOk > 0)
        {
            if (++steps > maxSteps)
            {
                return new Result(Verdict.UNKNOWN, steps, null, List.of());
            }
            if (entry.call)
            {
                final Operation op = entry.op;
                final boolean allowed = op.fits(state);
                if (allowed)
                {
                    final String next = op.apply(state);
                    linearized.set(entry.index);
                    if (seen.add(new Config((BitSet)linearized.clone(), next)))
                    {
                        stack.push(new Frame(entry, state));
                        state = next;
                        if (op.outcome() == Operation.Outcome.OK)
                        {
                            remainingOk--;
                        }
                        entry.lift();
                        entry = head.next;
                        continue;
                    }
                    linearized.clear(entry.index);
                }
                entry = entry.next;
            }
            else
            {
                if (stack.size() > deepest)
                {
                    deepest = stack.size();
                    stuckAt = entry.op;
                    deepestOrder = order(stack);
                }
                if (stack.isEmpty())
                {
                    return new Result(Verdict.NOT_LINEARIZABLE, steps, stuckAt, deepestOrder);
                }
                final Frame top = stack.pop();
                state = top.stateBefore;
                linearized.clear(top.entry.index);
                if (top.entry.op.outcome() == Operation.Outcome.OK)
                {
                    remainingOk++;
                }
                top.entry.unlift();
                entry = top.entry.next;
            }
        }
        return new Result(Verdict.LINEARIZABLE, steps, null, List.of());
    }

    private static List<Operation> order(final ArrayDeque<Frame> stack)
    {
        final List<Operation> out = new ArrayList<>(stack.size());
        stack.descendingIterator().forEachRemaining(f -> out.add(f.entry.op));
        return out;
    }

    /** Invocation and completion events in time order; at equal times invocations first (equal means concurrent). */
    private static Entry buildList(final List<Operation> ops)
    {
        final List<Entry> events = new ArrayList<>(ops.size() * 2);
        for (int i = 0; i < ops.size(); i++)
        {
            final Operation op = ops.get(i);
            final Entry call = new Entry(op, i, true, op.invokeNanos());
            events.add(call);
            if (op.outcome() == Operation.Outcome.OK)
            {
                final Entry ret = new Entry(op, i, false, op.completeNanos());
                call.match = ret;
                events.add(ret);
            }
        }
        events.sort(Comparator.comparingLong((Entry e) -> e.time).thenComparing(e -> !e.call));
        final Entry head = new Entry(null, -1, false, Long.MIN_VALUE);
        Entry prev = head;
        for (final Entry e : events)
        {
            prev.next = e;
            e.prev = prev;
            prev = e;
        }
        return head;
    }

    private record Config(BitSet linearized, String value)
    {
    }

    private record Frame(Entry entry, String stateBefore)
    {
    }

    private static final class Entry
    {
        final Operation op;
        final int index;
        final boolean call;
        final long time;
        Entry match;
        Entry prev;
        Entry next;

        Entry(final Operation op, final int index, final boolean call, final long time)
        {
            this.op = op;
            this.index = index;
            this.call = call;
            this.time = time;
        }

        /** Take this invocation and its completion out of the list (the head sentinel is always before them). */
        void lift()
        {
            prev.next = next;
            if (next != null)
            {
                next.prev = prev;
            }
            if (match != null)
            {
                match.prev.next = match.next;
                if (match.next != null)
                {
                    match.next.prev = match.prev;
                }
            }
        }

        /** Put them back where they were (strictly the reverse of {@link #lift()}). */
        void unlift()
        {
            if (match != null)
            {
                match.prev.next = match;
                if (match.next != null)
                {
                    match.next.prev = match;
                }
            }
            prev.next = this;
            if (next != null)
            {
                next.prev = this;
            }
        }
    }
}
