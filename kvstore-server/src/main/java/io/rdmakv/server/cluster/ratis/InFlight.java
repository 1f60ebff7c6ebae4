package io.rdmakv.server.cluster.ratis;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * At most one group request of each key in flight. The view asks again on timers (a renewal every lease / 3, a join
 * every lease / 3 until one commits, a node's failover every lease / 20 while its lease looks expired, the record of
 * Ratis's voters); on a host that stalls, each such ask used to send another request while the first still waited
 * for the group (joins and failovers had no guard: ten joins of one node committed in a row at start-up, and several
 * failovers of one node), each a Raft entry the slowed group had to commit besides the renewals. Thread-safe.
 */
final class InFlight<K>
{
    private final Map<K, CompletableFuture<?>> pending = new ConcurrentHashMap<>();

    /**
     * The future of {@code send}, called now, or null when a request of {@code key} sent before is still unanswered
     * (then nothing is sent).
     */
    <T> CompletableFuture<T> sendUnlessPending(final K key, final Supplier<CompletableFuture<T>> send)
    {
        final Object[] sent = new Object[1];
        pending.compute(key, (k, previous) ->
        {
            if (previous != null && !previous.isDone())
            {
                return previous;
            }
            final CompletableFuture<T> f = send.get();
            sent[0] = f;
            return f;
        });
        @SuppressWarnings("unchecked")
        final CompletableFuture<T> f = (CompletableFuture<T>)sent[0];
        if (f != null)
        {
            f.whenComplete((reply, failure) -> pending.remove(key, f));
        }
        return f;
    }

    /** The request of {@code key} still unanswered, or null. */
    CompletableFuture<?> pending(final K key)
    {
        final CompletableFuture<?> f = pending.get(key);
        return f == null || f.isDone() ? null : f;
    }
}
