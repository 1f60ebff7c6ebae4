package io.rdmakv.server.replication;

import io.rdmakv.server.cluster.ClusterJson;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.handler.ReplicaAdmission;
import io.rdmakv.server.handler.WritePathFactory;
import io.rdmakv.server.store.RangeStore;
import io.rdmakv.transport.Worker;

import java.security.SecureRandom;

/**
 * A node's replication, wired in two steps because the cluster view starts only once the node's ports are bound:
 * first the request handler is built with {@link #writePath()} and {@link #admission()} (until {@link #follow} they
 * write locally only and refuse replicated writes), then {@link #follow} hands them the view.
 *
 * <pre>
 *   Replication replication = new Replication(store.ranges(), worker, transportName, access, maxMessage, timeoutMs,
 *       ackPollMicros, counters);
 *   handler = new RequestHandler(..., replication.writePath(), replication.admission());
 *   ... listen ... view = ...;  replication.follow(view);
 * </pre>
 */
public final class Replication
{
    private final RangeStore ranges;
    private final Worker worker;
    private final String transport;
    private final PeerAccess access;
    private final int maxMessage;
    private final long timeoutMillis;
    private final long ackPollMicros;
    private final ServerCounters counters;
    private final ReplicaHistory history = new ReplicaHistory(ReplicaHistory.MAX_ENTRIES, ReplicaHistory.KEY_BYTES);
    private final ReplicaGate gate = new ReplicaGate(history);
    private volatile ReplicatingWritePath path;
    /** This run's id in the replication sequence its REPLICATEs carry (random, never 0). */
    private final long incarnation = newIncarnation();

    /**
     * @param worker        the node's transport worker (replication links are its endpoints).
     * @param transport     the transport's name, offered in the peers' HELLO.
     * @param access        the cluster secret peers present and the node's TLS settings.
     * @param maxMessage    largest data-plane message (a REPLICATE of the largest key and value fits).
     * @param timeoutMillis how long a backup may take to acknowledge ({@code replication.timeoutMs}).
     * @param ackPollMicros how long the request thread polls for an acknowledgement before it sleeps
     *                      ({@code replication.ackPollMicros}).
     * @param counters      the node's counters (reconciles and their fix-ups are counted).
     */
    public Replication(final RangeStore ranges, final Worker worker, final String transport, final PeerAccess access,
        final int maxMessage, final long timeoutMillis, final long ackPollMicros, final ServerCounters counters)
    {
        this.counters = counters;
        this.ranges = ranges;
        this.worker = worker;
        this.transport = transport;
        this.access = access;
        this.maxMessage = maxMessage;
        this.timeoutMillis = timeoutMillis;
        this.ackPollMicros = ackPollMicros;
    }

    /** The client writes' path: the local one, and replication around it once following a view. Build once. */
    public WritePathFactory writePath()
    {
        return (local, outcome, wakeUp, writeIds) ->
        {
            final ReplicatingWritePath built = ReplicatingWritePath.create(local, outcome, ranges, worker, transport,
                access, maxMessage, timeoutMillis, ackPollMicros, wakeUp, writeIds, history, incarnation, counters);
            path = built;
            return built;
        };
    }

    /**
     * Each replica this node sends writes to, by node id, with how far behind it is (empty before the write path is
     * built). Any thread.
     */
    public java.util.Map<Integer, ReplicaLag.Snapshot> lag()
    {
        final ReplicatingWritePath built = path;
        return built == null ? java.util.Map.of() : built.lag().snapshot(System.nanoTime());
    }

    /**
     * {@link #lag()} as JSON, with the ranges each replica is a backup or learner of where {@code view}'s node is
     * primary: {@code {"node":1,"replicas":[{"node":2,"ranges":[{"from":0,"to":5460,"role":"BACKUP"}],"sent":9,
     * "acked":9,"outstanding":0,"lastAckAgoMs":12}]}} ({@code lastAckAgoMs} null before the first acknowledgement).
     */
    public String lagJson(final ClusterView view)
    {
        final java.util.List<ClusterJson.ReplicaLag> replicas = new java.util.ArrayList<>();
        for (final ReplicaLag.Snapshot s : lag().values())
        {
            final java.util.List<ClusterJson.ReplicaRange> served = new java.util.ArrayList<>();
            for (final SlotRange r : view.current().ranges())
            {
                if (r.primary() == view.localNodeId() &&
                    (r.backups().contains(s.nodeId()) || r.learners().contains(s.nodeId())))
                {
                    served.add(new ClusterJson.ReplicaRange(r.firstSlot(), r.lastSlot(), r.backups()
                        .contains(s.nodeId()) ? ClusterJson.ReplicaRole.BACKUP : ClusterJson.ReplicaRole.LEARNER));
                }
            }
            replicas.add(new ClusterJson.ReplicaLag(s.nodeId(), served, s.sent(), s.acked(), s.outstanding(),
                s.lastAckAgoMillis() < 0 ? null : s.lastAckAgoMillis()));
        }
        return ClusterJson.write(new ClusterJson.Lag(view.localNodeId(), replicas));
    }

    /** This run's incarnation: the replication sequence of its REPLICATEs counts from 1 under it. */
    public long incarnation()
    {
        return incarnation;
    }

    private static long newIncarnation()
    {
        final SecureRandom random = new SecureRandom();
        long id;
        do
        {
            id = random.nextLong();
        }
        while (id == 0);
        return id;
    }

    /** The check of replicated writes from primaries. */
    public ReplicaAdmission admission()
    {
        return gate;
    }

    /** Replicate, and take replicated writes, as {@code view} says from now on (after the handler is built). */
    public void follow(final ClusterView view)
    {
        final ReplicatingWritePath built = path;
        if (built == null)
        {
            throw new IllegalStateException("build the request handler with writePath() first");
        }
        gate.follow(view);
        built.follow(view);
    }
}
