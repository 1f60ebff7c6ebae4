package io.rdmakv.server.cluster.ratis;

import io.rdmakv.transport.tls.TlsSettings;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.config.ClusterSettings;
import org.agrona.concurrent.NanoClock;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.function.CheckedSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A node's {@link ClusterView} in cluster mode: the configuration as the Ratis group committed it.
 *
 * <pre>
 *   start:  voter? start its Ratis server (log + snapshots under cluster.raftDir)
 *           -> JOIN (its address) until committed -> its lease runs from the JOIN's send time
 *   every lease/3:   RENEW, timed from the send; committed -> lease until send + lease; the answer carries the state,
 *                    or only its epoch when that is the one this node already holds (most renewals)
 *   every lease/10 on the leader: LeaseWatchdog.expired -> FAIL_NODE (refused if the node renewed meanwhile);
 *                                 Ratis's committed voters differ from the state's -> SET_VOTERS
 *   every newer state: the group client follows the state's voters; a voter no longer among them closes its server
 * </pre>
 *
 * <p>Voters learn every new state from their own state machine; other nodes from the answers to their renewals and
 * requests. Listeners get each newer state in epoch order on the view's own notification thread. With
 * {@code background == false} nothing runs by itself: tests drive {@link #join}, {@link #renew} and
 * {@link #superviseLeases} with an injected clock.
 */
public final class RatisClusterView implements ClusterView
{
    private static final Logger LOG = LoggerFactory.getLogger(RatisClusterView.class);
    /** Keys of {@link #inFlight}. */
    private static final String JOIN = "join";
    private static final String RENEW = "renew";
    private static final String VOTERS = "voters";
    /** Automatic snapshot of the state machine after this many log entries (renewals are most of them). */
    static final long SNAPSHOT_EVERY = 10_000;

    private final ClusterSettings settings;
    private final ClusterMember self;
    private final NanoClock clock;
    private final NodeLease lease;
    /** This node's Raft server, or null (never one, or closed once the group removed it). */
    private volatile RaftVoter voter;
    /** Whether this node has been a voter (listed at start, or named by a committed state since). */
    private volatile boolean wasVoter;
    private final GroupClient client;
    private final List<Consumer<ClusterState>> listeners = new CopyOnWriteArrayList<>();
    private final List<Runnable> leaseLost = new CopyOnWriteArrayList<>();
    private final List<Runnable> leaseRegained = new CopyOnWriteArrayList<>();
    /** Whether the lease held at the last check (the timer's thread). */
    private volatile boolean leaseHeld;
    private volatile boolean lostOnce;
    private final ExecutorService notifier = Executors.newSingleThreadExecutor(daemon("rdmakv-cluster-events"));
    /** Blocking calls into the group: one per request in flight (renewals, failure decisions, operators). */
    private final ExecutorService requests = Executors.newCachedThreadPool(daemon("rdmakv-cluster-requests"));
    /**
     * The group requests the timers send again and again while one is before the group: this node's join
     * ({@link #JOIN}), its renewal ({@link #RENEW}), the record of Ratis's voters ({@link #VOTERS}), the failover of
     * each node ({@link #failoverKey}). One of each at a time.
     */
    private final InFlight<String> inFlight = new InFlight<>();
    private final ScheduledExecutorService timer;
    /** Test-only pause at a resharding cut-over (off unless its system property is set). */
    private final CutOverHold cutOverHold;
    private volatile CoordState latest = CoordState.empty();
    private volatile boolean joined;
    /** Removed from the members by an operator while running: serves nothing and does not rejoin by itself. */
    private volatile boolean removed;
    /** The last state every listener has seen (routing and ownership words follow it). */
    private volatile ClusterState delivered;
    /** First slots of moved ranges whose release this node has asked for and not had answered. */
    private final java.util.Set<Integer> releasing = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private RatisClusterView(final ClusterSettings settings, final ClusterMember self, final NanoClock clock,
        final boolean background, final long snapshotEvery, final TlsSettings tls)
    {
        final org.apache.ratis.conf.Parameters raftTls = RaftTls.parameters(tls);
        this.settings = settings;
        this.self = self;
        this.clock = clock;
        this.lease = new NodeLease(TimeUnit.MILLISECONDS.toNanos(settings.leaseMillis()));
        this.wasVoter = settings.voter(self.nodeId()) != null;
        this.client = new GroupClient(settings, raftTls);
        // Before the voter starts: a state it recovers at start is published (and delivered) at once.
        this.cutOverHold = CutOverHold.configured(self.nodeId());
        this.voter = settings.raftPortOf(self.nodeId()) == 0 ? null :
            RaftVoter.start(settings, self.nodeId(), clock, snapshotEvery, this::publish, raftTls);
        followVoters(); // a state recovered at start may already name other voters
        this.timer = background ? Executors.newSingleThreadScheduledExecutor(daemon("rdmakv-cluster")) : null;
    }

    /**
     * Start this node's part of the cluster and, in the background, join and keep the lease.
     *
     * @param self the node's address as clients and peers reach it.
     */
    public static RatisClusterView start(final ClusterSettings settings, final ClusterMember self)
    {
        return start(settings, self, TlsSettings.OFF);
    }

    /**
     * As {@link #start(ClusterSettings, ClusterMember)}, the coordination group's traffic under {@code tls} (the
     * node's {@code tls.*} files, {@link RaftTls}).
     */
    public static RatisClusterView start(final ClusterSettings settings, final ClusterMember self,
        final TlsSettings tls)
    {
        final RatisClusterView view = new RatisClusterView(settings, self, io.rdmakv.server.cluster.NodeClock.configured(),
            true, SNAPSHOT_EVERY, tls);
        view.scheduleBackground();
        return view;
    }

    /** A view driven by the caller (tests): nothing runs unless {@link #join}, {@link #renew} or a supervise is called. */
    public static RatisClusterView startManual(final ClusterSettings settings, final ClusterMember self,
        final NanoClock clock, final long snapshotEvery)
    {
        return startManual(settings, self, clock, snapshotEvery, TlsSettings.OFF);
    }

    /** As {@link #startManual(ClusterSettings, ClusterMember, NanoClock, long)}, the group under {@code tls}. */
    public static RatisClusterView startManual(final ClusterSettings settings, final ClusterMember self,
        final NanoClock clock, final long snapshotEvery, final TlsSettings tls)
    {
        return new RatisClusterView(settings, self, clock, false, snapshotEvery, tls);
    }

    private void scheduleBackground()
    {
        if (voter != null)
        {
            // A new leader: renew now rather than at the next tick (see ClusterStateMachine#onLeaderChanged).
            voter.stateMachine().onLeaderChanged(() ->
            {
                try
                {
                    timer.execute(this::renewAfterElection);
                }
                catch (final java.util.concurrent.RejectedExecutionException ex)
                {
                    // closed: nothing to renew
                }
            });
        }
        final long renewEvery = Math.max(10, settings.leaseMillis() / 3);
        timer.scheduleWithFixedDelay(this::tick, 0, renewEvery, TimeUnit.MILLISECONDS);
        if (settings.raftPortOf(self.nodeId()) != 0)
        {
            // lease/20: a dead node's ranges fail over at most this much after its lease is surely over (a scan of
            // the members' renewal times; nothing is submitted unless one expired).
            final long superviseEvery = Math.max(10, settings.leaseMillis() / 20);
            timer.scheduleWithFixedDelay(this::superviseQuietly, superviseEvery, superviseEvery, TimeUnit.MILLISECONDS);
        }
    }

    private void tick()
    {
        checkLease();
        releaseMovedRanges();
        followVoters();
        try
        {
            if (removed)
            {
                return;
            }
            if (joined)
            {
                renew();
                return;
            }
            // One join in flight at a time: the next tick waits for the same one (see InFlight).
            final CompletableFuture<CommandReply> joining = inFlight.sendUnlessPending(JOIN, this::join);
            final CompletableFuture<?> waitFor = joining != null ? joining : inFlight.pending(JOIN);
            if (waitFor != null)
            {
                waitFor.get(settings.leaseMillis() * 2, TimeUnit.MILLISECONDS);
            }
        }
        catch (final Exception ex)
        {
            LOG.debug("cluster join/renew of node {} not committed yet: {}", self.nodeId(), ex.toString());
        }
    }

    private void renewAfterElection()
    {
        if (joined && !removed && !closed)
        {
            renew();
        }
    }

    private void superviseQuietly()
    {
        try
        {
            superviseLeases();
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("lease supervision failed: {}", ex.toString());
        }
    }

    /**
     * {@code action} runs (on the view's timer, within lease/3 of the moment) each time the node lease, held before,
     * is found lost while the node runs: e.g. fence the pool's ownership words.
     */
    public void onLeaseLost(final Runnable action)
    {
        leaseLost.add(action);
    }

    /** {@code action} runs when the lease holds again after {@link #onLeaseLost} actions ran. */
    public void onLeaseRegained(final Runnable action)
    {
        leaseRegained.add(action);
    }

    private void checkLease()
    {
        final boolean holds = lease.holds(clock.nanoTime());
        if (leaseHeld != holds && (leaseHeld || lostOnce))
        {
            if (!holds)
            {
                LOG.warn("node {} lost its lease: it serves nothing until a renewal commits", self.nodeId());
                lostOnce = true;
            }
            for (final Runnable r : holds ? leaseRegained : leaseLost)
            {
                try
                {
                    r.run();
                }
                catch (final RuntimeException ex)
                {
                    LOG.warn("lease-lost action failed: {}", ex.toString());
                }
            }
        }
        leaseHeld = holds;
    }

    /** Join (or rejoin) the cluster; the lease runs from this call once committed. */
    public CompletableFuture<CommandReply> join()
    {
        final long sent = clock.nanoTime();
        return submit(new ClusterCommand.Join(self, settings.initialNodes(), settings.replicas())).thenApply(reply ->
        {
            if (reply.accepted())
            {
                joined = true;
                lease.renewed(sent);
                LOG.info("node {} joined the cluster at epoch {}", self.nodeId(), reply.state().cluster().epoch());
            }
            return reply;
        });
    }

    /**
     * Renew the lease once (skipped while a renewal is in flight); the lease runs from this call once committed. The
     * answer carries no state ({@link CommandReply#stateOmitted()}) when this node's configuration epoch is current.
     */
    public CompletableFuture<CommandReply> renew()
    {
        final CompletableFuture<CommandReply> renewing = inFlight.sendUnlessPending(RENEW, this::sendRenewal);
        return renewing != null ? renewing : CompletableFuture.completedFuture(null);
    }

    private CompletableFuture<CommandReply> sendRenewal()
    {
        final long sent = clock.nanoTime();
        final ClusterCommand renewal = new ClusterCommand.Renew(self.nodeId(), latest.cluster().epoch());
        return submit(renewal).whenComplete((reply, failure) ->
        {
            if (reply == null)
            {
                return;
            }
            if (reply.accepted())
            {
                lease.renewed(sent);
            }
            else if (reply.state().cluster().member(self.nodeId()) == null && !reply.state().cluster().members().isEmpty())
            {
                LOG.warn("node {} was removed from the cluster: it serves nothing and does not rejoin (stop it, or " +
                    "restart it to join again)", self.nodeId());
                lease.revoke();
                removed = true;
            }
            else
            {
                LOG.warn("node {} lease renewal refused ({}): rejoining", self.nodeId(), reply.refusal());
                lease.revoke();
                joined = false;
            }
        });
    }

    /**
     * On the leader: declare every surely expired lease (see {@link LeaseWatchdog}) and commit the failovers.
     * Returns the commands submitted now (none on a follower or a non-voter; a node's failover still before the group
     * is not submitted again). Also records Ratis's committed voters in the state when they differ from it (an
     * operator's change whose SET_VOTERS was not committed).
     */
    public List<ClusterCommand.FailNode> superviseLeases()
    {
        final RaftVoter own = voter;
        if (own == null || !own.isLeader())
        {
            return List.of();
        }
        recordVoters(own);
        final List<ClusterCommand.FailNode> expired = own.watchdog().expired(own.stateMachine().state(),
            clock.nanoTime());
        final List<ClusterCommand.FailNode> submitted = new ArrayList<>();
        for (final ClusterCommand.FailNode f : expired)
        {
            // One failover of a node in flight at a time: a decision still before the group is not sent again.
            final CompletableFuture<CommandReply> sent = inFlight.sendUnlessPending(failoverKey(f.nodeId()),
                () -> submit(f));
            if (sent == null)
            {
                continue;
            }
            submitted.add(f);
            LOG.warn("node {}'s lease expired (no renewal applied for lease * drift = {} ms): failing over its ranges",
                f.nodeId(), own.watchdog().expiryNanos() / 1_000_000);
            sent.thenAccept(reply ->
            {
                if (!reply.accepted())
                {
                    LOG.info("failover of node {} not committed: {}", f.nodeId(), reply.refusal());
                }
            });
        }
        return submitted;
    }

    private void recordVoters(final RaftVoter leader)
    {
        final List<ClusterSettings.Voter> committed = leader.committedVoters();
        if (committed == null || committed.equals(voters()) ||
            inFlight.sendUnlessPending(VOTERS, () -> submit(new ClusterCommand.SetVoters(committed))) == null)
        {
            return;
        }
        LOG.info("the group's committed voters {} differ from the state's {}: recording them",
            VoterChanges.text(committed), VoterChanges.text(voters()));
    }

    private static String failoverKey(final int nodeId)
    {
        return "failover of " + nodeId;
    }

    /**
     * Make {@code next} the group's voters: Ratis's own membership change ({@code setConfiguration}: a new voter is
     * caught up before it counts, then joint consensus), then SET_VOTERS records them in the state every node reads.
     * The rules an operator's change must pass are {@link VoterChanges}'.
     */
    public CompletableFuture<CommandReply> changeVoters(final List<ClusterSettings.Voter> next)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            final RaftClientReply reply = call(() -> client.setConfiguration(next));
            if (!reply.isSuccess())
            {
                throw new IllegalStateException("the group did not change its voters: " + reply.getException());
            }
            return reply;
        }, requests).thenCompose(done -> submit(new ClusterCommand.SetVoters(next))).thenApply(reply ->
        {
            if (!reply.accepted())
            {
                throw new IllegalStateException("the new voters were not recorded: " + reply.refusal());
            }
            return reply;
        });
    }

    /** The group's voters as this node knows them (sorted by id): the newest state's, else the bootstrap list. */
    public List<ClusterSettings.Voter> voters()
    {
        final List<ClusterSettings.Voter> recorded = latest.voters();
        return recorded.isEmpty() ? GroupClient.sorted(settings.voters()) : recorded;
    }

    /**
     * Aim the group client at the voters the newest state names. A node that was a voter and is no longer one closes
     * its Raft server (the group removed it: it could only campaign in vain) and goes on following the group.
     */
    private void followVoters()
    {
        final List<ClusterSettings.Voter> now = voters();
        client.retarget(now);
        if (now.stream().anyMatch(v -> v.nodeId() == self.nodeId()))
        {
            wasVoter = true;
            return;
        }
        final RaftVoter retired = voter;
        if (!wasVoter || retired == null || closed)
        {
            return;
        }
        voter = null;
        LOG.warn("node {} is no longer a voter of the coordination group (voters {}): its Raft server stops, the node " +
            "goes on following the group", self.nodeId(), VoterChanges.text(now));
        // Not on Ratis's applying thread, which may be the caller.
        final Thread closer = new Thread(retired::close, "rdmakv-voter-retire");
        closer.setDaemon(true);
        closer.start();
    }

    /**
     * Commit {@code command} through the group; the reply carries the state after it (also published here). Runs the
     * client's blocking call on a thread of the view's: Ratis's ordered async client closes itself for good once one
     * request exhausts its retries (as while the group has no leader), the blocking one stays usable.
     */
    public CompletableFuture<CommandReply> submit(final ClusterCommand command)
    {
        final Message message = Message.valueOf(ByteString.copyFrom(CommandCodec.encode(command)));
        return CompletableFuture.supplyAsync(() -> decode(call(() -> client.send(message))), requests);
    }

    /** The group's current state, read through the leader (linearizable). */
    public CompletableFuture<CommandReply> query()
    {
        return CompletableFuture.supplyAsync(() -> decode(call(() -> client.sendReadOnly(Message.EMPTY))),
            requests);
    }

    private static RaftClientReply call(final CheckedSupplier<RaftClientReply, IOException> call)
    {
        try
        {
            return call.get();
        }
        catch (final IOException ex)
        {
            throw new java.io.UncheckedIOException("the coordination group did not answer: " + ex.getMessage(), ex);
        }
    }

    private CommandReply decode(final RaftClientReply reply)
    {
        if (!reply.isSuccess())
        {
            throw new IllegalStateException("the coordination group did not commit the command: " +
                reply.getException());
        }
        final CommandReply decoded = CommandReply.decode(reply.getMessage().getContent().toByteArray());
        if (!decoded.stateOmitted()) // else a renewal's answer: the configuration this node holds is current
        {
            publish(decoded.state());
        }
        return decoded;
    }

    /** Take {@code state} if it is newer; tell listeners when its configuration epoch rose. */
    private void publish(final CoordState state)
    {
        final boolean newer;
        synchronized (this)
        {
            final long have = latest.cluster().epoch();
            final long got = state.cluster().epoch();
            newer = got > have;
            if (got >= have)
            {
                latest = state;
            }
        }
        if (newer)
        {
            followVoters();
        }
        if (state.isFailed(self.nodeId()))
        {
            lease.revoke();
            joined = false;
        }
        if (newer && !closed)
        {
            final ClusterState cluster = state.cluster();
            notifier.execute(() ->
            {
                if (latest.cluster().epoch() != cluster.epoch())
                {
                    return; // a newer one is queued behind: listeners see states in epoch order, newest last
                }
                cutOverHold.beforeDelivery(cluster);
                for (final Consumer<ClusterState> l : listeners)
                {
                    try
                    {
                        l.accept(cluster);
                    }
                    catch (final RuntimeException ex)
                    {
                        LOG.warn("cluster listener failed: {}", ex.toString());
                    }
                }
                delivered = cluster;
                releaseMovedRanges();
            });
        }
    }

    /**
     * The resharding cut-over, on the old primary: once every listener has seen that a range it moved has a new
     * primary (so requests are routed there and the pool's ownership words say FENCED), report the range released;
     * the group makes it LIVE at the new primary. Retried at every state delivered and every renewal tick until
     * committed.
     */
    private void releaseMovedRanges()
    {
        final ClusterState seen = delivered;
        if (seen == null || seen.ranges().isEmpty() || closed)
        {
            return;
        }
        for (final java.util.Map.Entry<Integer, Integer> handoff : latest.handoffs().entrySet())
        {
            final int first = handoff.getKey();
            final SlotRange range = seen.rangeOf(first);
            if (handoff.getValue() != self.nodeId() || range.firstSlot() != first ||
                range.primary() == self.nodeId() || !releasing.add(first))
            {
                continue;
            }
            LOG.info("node {} stopped serving slots {}-{} (moved to node {}): releasing them", self.nodeId(), first,
                range.lastSlot(), range.primary());
            submit(new ClusterCommand.ReleaseRange(first, self.nodeId())).whenComplete((reply, failure) ->
            {
                releasing.remove(first);
                if (failure != null || !reply.accepted())
                {
                    LOG.info("release of slots {}- not committed ({}): retried", first,
                        failure != null ? failure.toString() : reply.refusal());
                }
            });
        }
    }

    /**
     * The newest coordinator state this node knows. A voter's own state machine has every renewal it applied; other
     * nodes' renewal counts are as of their last answer with the state (a configuration change or a refusal).
     */
    public CoordState coordState()
    {
        final RaftVoter v = voter;
        final CoordState applied = v == null ? null : v.stateMachine().state();
        return applied != null && applied.cluster().epoch() >= latest.cluster().epoch() ? applied : latest;
    }

    /** This node's voter, or null when it only follows the group's decisions. */
    public RaftVoter voter()
    {
        return voter;
    }

    public ClusterSettings settings()
    {
        return settings;
    }

    @Override
    public int localNodeId()
    {
        return self.nodeId();
    }

    @Override
    public ClusterState current()
    {
        return latest.cluster();
    }

    /** The failed set of the newest coordinator state this node knows ({@link #coordState()}). */
    @Override
    public java.util.Set<Integer> failedNodes()
    {
        return coordState().failed();
    }

    @Override
    public void subscribe(final Consumer<ClusterState> listener)
    {
        listeners.add(listener);
    }

    @Override
    public CompletableFuture<ClusterState> removeFromInSync(final int firstSlot, final long rangeEpoch,
        final int nodeId)
    {
        return committed(submit(new ClusterCommand.RemoveFromInSync(firstSlot, rangeEpoch, self.nodeId(), nodeId)));
    }

    @Override
    public CompletableFuture<ClusterState> promoteLearner(final int firstSlot, final long rangeEpoch, final int nodeId)
    {
        return committed(submit(new ClusterCommand.PromoteLearner(firstSlot, rangeEpoch, self.nodeId(), nodeId)));
    }

    private static CompletableFuture<ClusterState> committed(final CompletableFuture<CommandReply> reply)
    {
        return reply.thenApply(r ->
        {
            if (!r.accepted())
            {
                throw new IllegalStateException(r.refusal());
            }
            return r.state().cluster();
        });
    }

    @Override
    public boolean holdsLease(final long nowNanos)
    {
        return lease.holds(nowNanos);
    }

    @Override
    public long leaseDeadlineNanos()
    {
        return lease.deadlineNanos();
    }

    @Override
    public void close()
    {
        closed = true;
        if (timer != null)
        {
            timer.shutdownNow();
        }
        notifier.shutdownNow();
        requests.shutdownNow();
        client.close();
        final RaftVoter running = voter;
        if (running != null)
        {
            running.close();
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(final String name)
    {
        return r ->
        {
            final Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
