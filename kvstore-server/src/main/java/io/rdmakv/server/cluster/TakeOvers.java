package io.rdmakv.server.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The ranges this node took over from another primary while backups remain in sync with it, until its reconcile of
 * them ends: the one place that decides "taken over, backups remain", and the state this node serves by. Until the
 * new primary reconciled its backups, the one promoted after it (should it die) may lack writes of the previous
 * primary it held, or hold writes it lacked; a read it served of such a write would then be a stale read after the
 * second failover. So a held range is served as FENCED: its ownership words say FENCED (one-sided readers re-route)
 * and its router answers reads and writes WRONG_NODE naming this node (clients refresh and retry).
 *
 * <pre>
 *   observe(state)    decides, once per state newer than the last decided (epoch order; the request thread as it takes
 *                     a state, the view's listener as it delivers one: the first decides): a range this node is
 *                     primary of now, was an in-sync backup of under another primary before, with backups -> held; a
 *                     held range no longer this node's (another primary, other bounds) -> no longer held
 *   deliver(state)    the view's listener: observe, then publish the state served (held ranges FENCED) to the
 *                     listeners (routing, ownership words), in order, under this lock; the request thread never
 *                     publishes, so routing and ownership words follow the view's notifications as before
 *   release(hold)     the reconcile ended (Reconciles: every backup reconciled or out of the in-sync set, or the range
 *                     gone) -> published again, served as the view says
 * </pre>
 * Any thread; {@link #holds} reads without a lock.
 */
public final class TakeOvers
{
    /** A range taken over: its bounds and the primary it was taken from. */
    public record Hold(int firstSlot, int lastSlot, int previousPrimary)
    {
    }

    private final int localNodeId;
    private final List<Consumer<ClusterState>> listeners = new CopyOnWriteArrayList<>();
    /** The last state decided on and the last delivered (lock), and what that one is served as. */
    private ClusterState decided;
    private ClusterState delivered;
    private ClusterState served;
    /** The holds, replaced as a whole (read without a lock). */
    private volatile Hold[] held = new Hold[0];

    public TakeOvers(final int localNodeId)
    {
        this.localNodeId = localNodeId;
    }

    /** Follow {@code view}: deliver its current state now, every newer one as the view notifies it. */
    public void follow(final ClusterView view)
    {
        view.subscribe(this::deliver);
        deliver(view.current());
    }

    /** A state the view delivers: decided on (if not yet), then published as served. Older ones change nothing. */
    public synchronized void deliver(final ClusterState now)
    {
        if (delivered != null && now.epoch() < delivered.epoch())
        {
            return;
        }
        observe(now);
        delivered = now;
        publish();
    }

    /**
     * Call {@code listener} with the served state now (if any) and on every change of it. It runs under this object's
     * lock: it must not block or call back into it.
     */
    public synchronized void subscribe(final Consumer<ClusterState> listener)
    {
        listeners.add(listener);
        if (served != null)
        {
            listener.accept(served);
        }
    }

    /** Hand {@code to} the served state now (a lease regained republishes the ownership words), under the lock. */
    public synchronized void republish(final Consumer<ClusterState> to)
    {
        if (served != null)
        {
            to.accept(served);
        }
    }

    /** Decide on a committed state (no publication); an older one than the last decided (or an equal one): nothing. */
    public synchronized void observe(final ClusterState now)
    {
        final ClusterState before = decided;
        if (before != null && (now.epoch() < before.epoch() || now.equals(before)))
        {
            return;
        }
        decided = now;
        final List<Hold> next = new ArrayList<>();
        for (final Hold h : held)
        {
            final SlotRange current = now.ranges().isEmpty() ? null : now.rangeOf(h.firstSlot());
            if (current != null && current.primary() == localNodeId && current.firstSlot() == h.firstSlot() &&
                current.lastSlot() == h.lastSlot())
            {
                next.add(h);
            }
        }
        if (before != null && !before.ranges().isEmpty())
        {
            for (final SlotRange range : now.ranges())
            {
                if (range.primary() != localNodeId || range.backups().isEmpty() || indexOf(next, range) >= 0)
                {
                    continue;
                }
                final SlotRange old = before.rangeOf(range.firstSlot());
                if (old.primary() != localNodeId && old.backups().contains(localNodeId))
                {
                    next.add(new Hold(range.firstSlot(), range.lastSlot(), old.primary()));
                }
            }
        }
        held = next.toArray(new Hold[0]);
    }

    /** The reconcile of {@code hold} ended: its range is served as the view says (a hold replaced since: nothing). */
    public synchronized void release(final Hold hold)
    {
        final Hold[] now = held;
        for (int i = 0; i < now.length; i++)
        {
            if (now[i] == hold)
            {
                final Hold[] next = new Hold[now.length - 1];
                System.arraycopy(now, 0, next, 0, i);
                System.arraycopy(now, i + 1, next, i, now.length - i - 1);
                held = next;
                if (delivered != null)
                {
                    publish();
                }
                return;
            }
        }
    }

    /** The ranges held now. */
    public List<Hold> held()
    {
        return List.of(held);
    }

    /** Whether {@code hashSlot} lies in a range held now (no lock). */
    public boolean holds(final int hashSlot)
    {
        for (final Hold h : held)
        {
            if (hashSlot >= h.firstSlot() && hashSlot <= h.lastSlot())
            {
                return true;
            }
        }
        return false;
    }

    /** The last delivered state with its held ranges FENCED (null before the first). */
    public synchronized ClusterState served()
    {
        return served;
    }

    private static int indexOf(final List<Hold> holds, final SlotRange range)
    {
        for (int i = 0; i < holds.size(); i++)
        {
            if (holds.get(i).firstSlot() == range.firstSlot())
            {
                return i;
            }
        }
        return -1;
    }

    private void publish()
    {
        final Hold[] now = held;
        if (now.length == 0)
        {
            served = delivered;
        }
        else
        {
            final List<SlotRange> ranges = new ArrayList<>(delivered.ranges().size());
            for (final SlotRange r : delivered.ranges())
            {
                ranges.add(isHeld(now, r) ? new SlotRange(r.firstSlot(), r.lastSlot(), r.epoch(), r.primary(),
                    r.backups(), r.learners(), SlotRange.State.FENCED) : r);
            }
            served = new ClusterState(delivered.epoch(), delivered.members(), ranges);
        }
        for (final Consumer<ClusterState> listener : listeners)
        {
            listener.accept(served);
        }
    }

    /** Held: this node's range (in the state delivered, which may be older than the one decided) of a hold's bounds. */
    private boolean isHeld(final Hold[] holds, final SlotRange range)
    {
        if (range.primary() != localNodeId)
        {
            return false;
        }
        for (final Hold h : holds)
        {
            if (h.firstSlot() == range.firstSlot() && h.lastSlot() == range.lastSlot())
            {
                return true;
            }
        }
        return false;
    }
}
