package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code remove-node}: move every replica off a node without losing a write, then remove it. One step at a time,
 * each decided on the newest committed state, so a step refused or a failover in between is simply looked at again:
 *
 * <pre>
 *   node is the range's primary, another live member holds none of it:  BEGIN_MOVE to it, wait until it is in sync
 *                                                                       (its catch-up), FINISH_MOVE
 *   node is the primary, every other live member already holds it:     FAILOVER to its first in-sync backup
 *   node is a backup or learner, another live member holds none of it:  ADD_REPLICA (a learner), wait until the
 *                                                                       primary reports it in sync, DROP_REPLICA
 *   node is a backup or learner, nobody else could take it:            DROP_REPLICA (the range keeps fewer replicas)
 *   node holds nothing:                                                 REMOVE_MEMBER
 * </pre>
 *
 * The target of each step is the live member that is primary or replica of the fewest slots. A node that is removed
 * while it runs stops renewing and serves nothing (it does not rejoin by itself).
 */
final class Drainer
{
    private static final int MAX_STEPS = 256;

    private Drainer()
    {
    }

    /** One step to take, or null when the node holds nothing. */
    static ClusterCommand nextStep(final CoordState s, final int nodeId)
    {
        final ClusterState c = s.cluster();
        for (final SlotRange r : c.ranges())
        {
            if (!r.hasReplica(nodeId))
            {
                continue;
            }
            final int target = leastLoaded(s, r, nodeId);
            if (r.primary() == nodeId)
            {
                if (target > 0 && r.state() == SlotRange.State.LIVE)
                {
                    return new ClusterCommand.BeginMove(r.firstSlot(), r.lastSlot(), target);
                }
                if (r.state() == SlotRange.State.MIGRATING && !r.learners().isEmpty())
                {
                    return null; // a move of it is under way: the caller waits for it
                }
                if (!r.backups().isEmpty())
                {
                    return new ClusterCommand.Failover(r.firstSlot(), r.backups().get(0));
                }
                throw new IllegalStateException("range " + r.firstSlot() + "-" + r.lastSlot() + " has only node " +
                    nodeId + " and no other live member to move it to");
            }
            return target > 0 ? new ClusterCommand.AddReplica(r.firstSlot(), target) :
                new ClusterCommand.DropReplica(r.firstSlot(), nodeId);
        }
        return null;
    }

    /** The live member other than {@code nodeId} holding no replica of {@code range} and the fewest slots; or -1. */
    private static int leastLoaded(final CoordState s, final SlotRange range, final int nodeId)
    {
        final Map<Integer, Integer> load = new HashMap<>();
        for (final ClusterMember m : s.cluster().members())
        {
            if (m.nodeId() != nodeId && !s.isFailed(m.nodeId()) && !range.hasReplica(m.nodeId()))
            {
                load.put(m.nodeId(), 0);
            }
        }
        for (final SlotRange r : s.cluster().ranges())
        {
            for (final int holder : load.keySet().toArray(new Integer[0]))
            {
                if (r.hasReplica(holder))
                {
                    load.merge(holder, r.lastSlot() - r.firstSlot() + 1, Integer::sum);
                }
            }
        }
        int best = -1;
        for (final Map.Entry<Integer, Integer> e : load.entrySet())
        {
            if (best < 0 || e.getValue() < load.get(best) || e.getValue().equals(load.get(best)) && e.getKey() < best)
            {
                best = e.getKey();
            }
        }
        return best;
    }

    /**
     * Drain {@code nodeId} through {@code view} and remove it; each catch-up waits at most
     * {@code catchUpTimeoutMillis}. Returns one line per step.
     */
    static String run(final RatisClusterView view, final int nodeId, final long catchUpTimeoutMillis)
        throws InterruptedException
    {
        final StringBuilder log = new StringBuilder();
        if (view.coordState().cluster().member(nodeId) == null)
        {
            return "refused: node " + nodeId + " is not a member";
        }
        for (int i = 0; i < MAX_STEPS; i++)
        {
            final ClusterCommand step = nextStep(view.coordState(), nodeId);
            if (step == null)
            {
                final SlotRange moving = movingOff(view.coordState(), nodeId);
                if (moving == null)
                {
                    awaitReleased(view, nodeId, catchUpTimeoutMillis);
                    final CommandReply removed = view.submit(new ClusterCommand.RemoveMember(nodeId)).join();
                    return log.append(removed.accepted() ? "removed node " + nodeId + " at epoch " +
                        removed.state().cluster().epoch() : "removal refused: " + removed.refusal()).toString();
                }
                final int target = moving.learners().get(0);
                if (!awaitInSync(view, moving.firstSlot(), target, catchUpTimeoutMillis))
                {
                    return log.append("node ").append(target).append(" did not catch up on ").append(moving.firstSlot())
                        .append(" in time").toString();
                }
                log.append(finish(view, new ClusterCommand.FinishMove(moving.firstSlot(), target)));
                continue;
            }
            final CommandReply reply = view.submit(step).join();
            if (!reply.accepted())
            {
                return log.append(step).append(" refused: ").append(reply.refusal()).toString();
            }
            log.append(step).append(" committed at epoch ").append(reply.state().cluster().epoch()).append('\n');
            if (step instanceof ClusterCommand.BeginMove m)
            {
                if (!awaitInSync(view, m.firstSlot(), m.target(), catchUpTimeoutMillis))
                {
                    return log.append("node ").append(m.target()).append(" did not catch up on ").append(m.firstSlot())
                        .append(" within ").append(catchUpTimeoutMillis).append(" ms").toString();
                }
                log.append(finish(view, new ClusterCommand.FinishMove(m.firstSlot(), m.target())));
            }
            else if (step instanceof ClusterCommand.AddReplica a)
            {
                if (!awaitInSync(view, a.firstSlot(), a.nodeId(), catchUpTimeoutMillis))
                {
                    return log.append("node ").append(a.nodeId()).append(" did not catch up on ").append(a.firstSlot())
                        .append(" within ").append(catchUpTimeoutMillis).append(" ms").toString();
                }
                log.append(finish(view, new ClusterCommand.DropReplica(a.firstSlot(), nodeId)));
            }
        }
        return log.append("stopped after ").append(MAX_STEPS).append(" steps").toString();
    }

    /** A MIGRATING range {@code nodeId} is primary of (a move under way), or null. */
    private static SlotRange movingOff(final CoordState s, final int nodeId)
    {
        for (final SlotRange r : s.cluster().ranges())
        {
            if (r.primary() == nodeId && r.state() == SlotRange.State.MIGRATING && !r.learners().isEmpty())
            {
                return r;
            }
        }
        return null;
    }

    private static String finish(final RatisClusterView view, final ClusterCommand command)
    {
        final CommandReply reply = view.submit(command).join();
        return command + (reply.accepted() ? " committed at epoch " + reply.state().cluster().epoch() :
            " refused: " + reply.refusal()) + "\n";
    }

    /** Wait until {@code nodeId} released every range moved off it (the cut-overs are over). */
    private static void awaitReleased(final RatisClusterView view, final int nodeId, final long timeoutMillis)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (view.coordState().handoffs().containsValue(nodeId) && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(50);
            view.query().join(); // the releases are committed by the node itself: read the group's state
        }
    }

    private static boolean awaitInSync(final RatisClusterView view, final int firstSlot, final int nodeId,
        final long timeoutMillis) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true)
        {
            final ClusterState c = view.current();
            final SlotRange r = c.ranges().isEmpty() ? null : c.rangeOf(firstSlot);
            if (r != null && r.firstSlot() == firstSlot && (r.backups().contains(nodeId) || r.primary() == nodeId))
            {
                return true;
            }
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            Thread.sleep(50);
        }
    }
}
