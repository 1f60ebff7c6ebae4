package io.rdmakv.server.admission;

import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The connections of one port that have not authenticated yet, oldest first. At most {@code max} at once and at most
 * {@code maxPerSource} from one {@link SourceAddress}; a newcomer is always admitted, and when a bound is full the
 * oldest connection under that bound is handed back to be closed (shed) instead. A connection leaves when it
 * authenticates, when it closes, or when {@link #overdue} finds it older than the deadline.
 *
 * <pre>
 *   admit(c) ─► waiting (oldest ... newest) ──authenticated(c)──► (the caller's authenticated set)
 *     │  source full: shed that source's oldest      └──overdue(now)──► closed
 *     └─ budget full: shed the oldest of all
 * </pre>
 *
 * So idle connections cannot lock clients out: an attacker's connections are the oldest once a client connects, and
 * one source can only shed its own. Single-threaded (the owning event loop). Allocation is per connection (control
 * path), never per request.
 *
 * @param <C> the connection (compared by identity: Netty channels and transport endpoints do not override equals).
 */
public final class UnauthenticatedBudget<C>
{
    private final int max;
    private final int maxPerSource;
    private final long deadlineNanos;
    /** Insertion order is arrival order, so the first entry is the oldest. */
    private final LinkedHashMap<C, Waiting> waiting = new LinkedHashMap<>();
    private final Map<InetAddress, ArrayDeque<C>> bySource = new HashMap<>();
    private boolean lastShedForSource;

    /**
     * @param max           unauthenticated connections at most.
     * @param maxPerSource  of them from one source at most.
     * @param deadlineNanos how long one may stay unauthenticated.
     */
    public UnauthenticatedBudget(final int max, final int maxPerSource, final long deadlineNanos)
    {
        if (max < 1 || maxPerSource < 1 || deadlineNanos <= 0)
        {
            throw new IllegalArgumentException("bounds must be positive: max " + max + ", per source " + maxPerSource +
                ", deadline " + deadlineNanos + " ns");
        }
        this.max = max;
        this.maxPerSource = maxPerSource;
        this.deadlineNanos = deadlineNanos;
    }

    /**
     * Admit a new connection.
     *
     * @return the connection shed to make room for it (the caller closes it; it is forgotten here), or {@code null}.
     */
    public C admit(final C connection, final InetAddress source, final long nowNanos)
    {
        C shed = null;
        final ArrayDeque<C> fromSource = bySource.computeIfAbsent(source, s -> new ArrayDeque<>());
        lastShedForSource = fromSource.size() >= maxPerSource;
        if (lastShedForSource)
        {
            shed = fromSource.peekFirst();
        }
        else if (waiting.size() >= max)
        {
            shed = waiting.keySet().iterator().next();
        }
        if (shed != null)
        {
            remove(shed);
        }
        waiting.put(connection, new Waiting(source, nowNanos));
        bySource.computeIfAbsent(source, s -> new ArrayDeque<>()).addLast(connection);
        return shed;
    }

    /** Why the last {@link #admit} shed: {@code "per source"} (its source was full) or {@code "in all"}. */
    public String lastShedReason()
    {
        return lastShedForSource ? "limits.maxUnauthenticatedPerSource " + maxPerSource :
            "limits.maxUnauthenticated " + max;
    }

    /** The connection authenticated: forget it. False if it was not waiting (shed, overdue or unknown). */
    public boolean authenticated(final C connection)
    {
        return remove(connection);
    }

    /** The connection closed: forget it. False if it was not waiting. */
    public boolean remove(final C connection)
    {
        final Waiting w = waiting.remove(connection);
        if (w == null)
        {
            return false;
        }
        final ArrayDeque<C> fromSource = bySource.get(w.source);
        fromSource.removeFirstOccurrence(connection);
        if (fromSource.isEmpty())
        {
            bySource.remove(w.source);
        }
        return true;
    }

    /** True while the connection is admitted and has not authenticated. */
    public boolean isWaiting(final C connection)
    {
        return waiting.containsKey(connection);
    }

    /** Remove and return the connections waiting {@code deadline} or longer, oldest first (only these allocate). */
    public List<C> overdue(final long nowNanos)
    {
        List<C> late = null;
        for (final Iterator<Map.Entry<C, Waiting>> it = waiting.entrySet().iterator(); it.hasNext(); )
        {
            final Map.Entry<C, Waiting> e = it.next();
            if (nowNanos - e.getValue().since < deadlineNanos)
            {
                break; // arrival order: every later one is younger
            }
            if (late == null)
            {
                late = new ArrayList<>();
            }
            late.add(e.getKey());
        }
        if (late == null)
        {
            return List.of();
        }
        late.forEach(this::remove);
        return late;
    }

    /** When the oldest waiting connection becomes overdue, or {@link Long#MAX_VALUE} when none waits. */
    public long nextDeadlineNanos()
    {
        return waiting.isEmpty() ? Long.MAX_VALUE : waiting.values().iterator().next().since + deadlineNanos;
    }

    /** Connections waiting. */
    public int size()
    {
        return waiting.size();
    }

    /** Connections waiting from {@code source}. */
    public int sizeOf(final InetAddress source)
    {
        final ArrayDeque<C> fromSource = bySource.get(source);
        return fromSource == null ? 0 : fromSource.size();
    }

    private record Waiting(InetAddress source, long since)
    {
    }
}
