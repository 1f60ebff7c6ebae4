package io.rdmakv.server.replication;

import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A cluster configuration the test decides, for testing replication without Ratis: one state for every node's view,
 * changed by the test ({@link #set}) or by the nodes' requests (removeFromInSync / promoteLearner), which the test
 * lets commit, refuses, or holds until it releases them.
 */
public final class ScriptedCluster implements AutoCloseable
{
    /** What a removeFromInSync or promoteLearner request does. */
    public enum Policy
    {
        COMMIT, REFUSE, HOLD
    }

    /** No map until the test sets one (the nodes' ports are known only once they started). */
    private final AtomicReference<ClusterState> state =
        new AtomicReference<>(new ClusterState(0, List.of(), List.of()));
    /** Listeners with the node whose view they subscribed to. */
    private final List<Map.Entry<Integer, Consumer<ClusterState>>> listeners = new CopyOnWriteArrayList<>();
    /** Nodes that missed every state since {@link #lag}: they keep reading the state they had. */
    private final Map<Integer, ClusterState> lagging = new ConcurrentHashMap<>();
    private final Executor commits = Executors.newSingleThreadExecutor(r ->
    {
        final Thread t = new Thread(r, "scripted-cluster");
        t.setDaemon(true);
        return t;
    });
    private final List<Runnable> held = new ArrayList<>();
    private final AtomicInteger removalRequests = new AtomicInteger();
    private final AtomicInteger promotions = new AtomicInteger();
    private volatile Policy policy = Policy.COMMIT;
    private volatile CountDownLatch requested = new CountDownLatch(1);

    /** One range over every slot: {@code primary} with {@code backups} and {@code learners}, at {@code epoch}. */
    public static ClusterState oneRange(final long epoch, final List<ClusterMember> members, final int primary,
        final List<Integer> backups, final List<Integer> learners)
    {
        return new ClusterState(epoch, members, List.of(new SlotRange(0, ClusterState.HASH_SLOT_COUNT - 1, epoch, primary,
            backups, learners, SlotRange.State.LIVE)));
    }

    /**
     * Commit {@code next}: every view reads it at once, and listeners are called before this returns (on the caller's
     * thread, unlike a real view, so a test's next request sees the new routing). A listener that throws (a stopped
     * node's, still subscribed) is reported and skipped: it must not stop the others or a held commit.
     */
    public void set(final ClusterState next)
    {
        state.set(next);
        for (final Map.Entry<Integer, Consumer<ClusterState>> listener : listeners)
        {
            if (lagging.containsKey(listener.getKey()))
            {
                continue;
            }
            try
            {
                listener.getValue().accept(next);
            }
            catch (final RuntimeException ex)
            {
                System.err.println("ScriptedCluster: a listener failed on epoch " + next.epoch() + ": " + ex);
            }
        }
    }

    /** Node {@code nodeId} hears of no later state (its view and listeners keep the current one) until unlagged. */
    public void lag(final int nodeId)
    {
        lagging.put(nodeId, state.get());
    }

    /**
     * Make {@code next} the newest state {@code current()} returns without telling the listeners yet, as a real view
     * does between taking a committed state and its notification thread delivering it (routing and ownership words
     * still follow the previous one). {@link #set} with the same state delivers it later.
     */
    public void setUndelivered(final ClusterState next)
    {
        state.set(next);
    }

    public ClusterState current()
    {
        return state.get();
    }

    public void policy(final Policy policy)
    {
        this.policy = policy;
    }

    /** Counts down at the next request (removal or promotion). */
    public CountDownLatch nextRequest()
    {
        requested = new CountDownLatch(1);
        return requested;
    }

    /** Commit the requests held under {@link Policy#HOLD}. */
    public void release()
    {
        final List<Runnable> toRun;
        synchronized (held)
        {
            toRun = new ArrayList<>(held);
            held.clear();
        }
        toRun.forEach(commits::execute);
    }

    public int removalRequests()
    {
        return removalRequests.get();
    }

    public int promotions()
    {
        return promotions.get();
    }

    public ClusterView viewOf(final int nodeId)
    {
        return new View(nodeId);
    }

    @Override
    public void close()
    {
        ((java.util.concurrent.ExecutorService)commits).shutdownNow();
    }

    private CompletableFuture<ClusterState> change(final int firstSlot, final long rangeEpoch,
        final java.util.function.UnaryOperator<SlotRange> edit)
    {
        final CompletableFuture<ClusterState> done = new CompletableFuture<>();
        final Runnable commit = () ->
        {
            synchronized (this)
            {
                final ClusterState s = state.get();
                final List<SlotRange> ranges = new ArrayList<>();
                for (final SlotRange r : s.ranges())
                {
                    if (r.firstSlot() == firstSlot)
                    {
                        if (r.epoch() != rangeEpoch)
                        {
                            done.completeExceptionally(new IllegalStateException("range epoch is " + r.epoch()));
                            return;
                        }
                        ranges.add(edit.apply(r));
                    }
                    else
                    {
                        ranges.add(r);
                    }
                }
                final ClusterState next = new ClusterState(s.epoch() + 1, s.members(), ranges);
                set(next);
                done.complete(next);
            }
        };
        final Policy p = policy;
        if (p == Policy.REFUSE)
        {
            done.completeExceptionally(new IllegalStateException("refused by the test"));
        }
        else if (p == Policy.HOLD)
        {
            synchronized (held)
            {
                held.add(commit);
            }
        }
        else
        {
            commits.execute(commit);
        }
        requested.countDown();
        return done;
    }

    private final class View implements ClusterView
    {
        private final int nodeId;

        View(final int nodeId)
        {
            this.nodeId = nodeId;
        }

        @Override
        public int localNodeId()
        {
            return nodeId;
        }

        @Override
        public ClusterState current()
        {
            final ClusterState missed = lagging.get(nodeId);
            return missed != null ? missed : state.get();
        }

        @Override
        public void subscribe(final Consumer<ClusterState> listener)
        {
            listeners.add(Map.entry(nodeId, listener));
        }

        @Override
        public CompletableFuture<ClusterState> removeFromInSync(final int firstSlot, final long rangeEpoch,
            final int node)
        {
            removalRequests.incrementAndGet();
            return change(firstSlot, rangeEpoch, r -> new SlotRange(r.firstSlot(), r.lastSlot(), r.epoch() + 1,
                r.primary(), r.backups().stream().filter(b -> b != node).toList(), r.learners(), r.state()));
        }

        @Override
        public CompletableFuture<ClusterState> promoteLearner(final int firstSlot, final long rangeEpoch,
            final int node)
        {
            promotions.incrementAndGet();
            return change(firstSlot, rangeEpoch, r ->
            {
                final List<Integer> backups = new ArrayList<>(r.backups());
                backups.add(node);
                return new SlotRange(r.firstSlot(), r.lastSlot(), r.epoch() + 1, r.primary(), backups,
                    r.learners().stream().filter(l -> l != node).toList(), r.state());
            });
        }

        @Override
        public boolean holdsLease(final long nowNanos)
        {
            return true;
        }

        @Override
        public long leaseDeadlineNanos()
        {
            return Long.MAX_VALUE;
        }

        @Override
        public void close()
        {
        }
    }
}
