package io.rdmakv.server.replication;

import io.rdmakv.server.cluster.ClusterJson;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.cluster.TakeOvers;
import io.rdmakv.server.handler.NodeWrites;
import io.rdmakv.server.handler.ReplicaInbox;
import io.rdmakv.server.handler.WriteOutcome;
import io.rdmakv.server.handler.WritePath;

import java.security.SecureRandom;

/**
 * A node's replication, and the write-path chain of its client writes: built once at start from the node's write
 * parts ({@link NodeWrites}) and the replication settings ({@link ReplicationContext}); the request handler is handed
 * {@link #clientWrites()} and {@link #replicaInbox()} finished. The cluster view starts only once the node's ports are
 * bound: until {@link #follow} every write is local only and replicated writes are refused.
 *
 * <pre>
 *   client writes : HeldWhileReconciling -> WriteIdCheck -> ReplicatingWritePath -> local path (PendingWrites' order)
 *   REPLICATE     : ReplicaRequests (ReplicaGate admits) -> its own local path
 *   every finished write -> WriteIds (records, waiting retries) -> pool update and answer
 * </pre>
 */
public final class Replication
{
    private final ReplicaGate gate;
    /** Null on a node without replication ({@link #localOnly}). */
    private final ReplicatingWritePath primary;
    private final WritePath clientWrites;
    private final ReplicaRequests inbox;
    /** This run's id in the replication sequence its REPLICATEs carry (random, never 0). */
    private final long incarnation = newIncarnation();

    /** A node of a (possible) cluster: primary side, replica side and write ids over {@code node}'s store. */
    public Replication(final ReplicationContext context, final NodeWrites node)
    {
        final WriteIds writeIds = WriteIds.keptIn(node.store(), node.responses(), node.counters());
        final WriteOutcome answer = writeIds.around(node.poolAndAnswer());
        final WritePath replicaWrites = node.localPath(answer, writeIds.durable());
        final ReplicaHistory history = new ReplicaHistory(ReplicaHistory.MAX_ENTRIES, ReplicaHistory.KEY_BYTES,
            replicaWrites);
        this.gate = new ReplicaGate(history);
        final PendingWrites pending = new PendingWrites(answer);
        this.primary = new ReplicatingWritePath(context, node.localPath(pending.localOutcome(), writeIds.durable()),
            pending, writeIds, history, incarnation, node.wakeUp());
        this.clientWrites = new HeldWhileReconciling(new WriteIdCheck(primary, writeIds), primary, node.counters(),
            node.responses());
        this.inbox = new ReplicaRequests(gate, replicaWrites, node, writeIds, clientWrites);
        RestoredRecords.load(node.store(), writeIds, gate);
    }

    private Replication(final NodeWrites node)
    {
        final WriteIds writeIds = WriteIds.keptIn(node.store(), node.responses(), node.counters());
        this.gate = null;
        this.primary = null;
        this.clientWrites = new WriteIdCheck(node.localPath(writeIds.around(node.poolAndAnswer()),
            writeIds.durable()), writeIds);
        this.inbox = new ReplicaRequests(ReplicaAdmission.NONE, null, node, writeIds, clientWrites);
        RestoredRecords.load(node.store(), writeIds, ReplicaAdmission.NONE);
    }

    /** A node that replicates nothing and refuses every REPLICATE: local writes with their write ids only. */
    public static Replication localOnly(final NodeWrites node)
    {
        return new Replication(node);
    }

    /** The finished path of client PUTs and DELETEs (request thread only). */
    public WritePath clientWrites()
    {
        return clientWrites;
    }

    /** Where primaries' REPLICATE messages go (request thread only). */
    public ReplicaInbox replicaInbox()
    {
        return inbox;
    }

    /**
     * Each replica this node sends writes to, by node id, with how far behind it is (empty before the write path is
     * built). Any thread.
     */
    public java.util.Map<Integer, ReplicaLag.Snapshot> lag()
    {
        return primary == null ? java.util.Map.of() : primary.lag().snapshot(System.nanoTime());
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

    /**
     * Replicate, and take replicated writes, as {@code view} says from now on (any thread).
     *
     * @param self      this node's advertised {@code host:controlPort}, named when a held write is refused.
     * @param takeOvers the ranges this node took over, held until its reconcile of them ends (which releases them).
     */
    public void follow(final ClusterView view, final String self, final TakeOvers takeOvers)
    {
        if (primary == null)
        {
            throw new IllegalStateException("a node built localOnly() replicates nothing");
        }
        gate.follow(view);
        primary.follow(view, self, takeOvers);
    }
}
