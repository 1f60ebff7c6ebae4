package io.rdmakv.server.metrics;

import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.cluster.StaticClusterView;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * {@code /health/ready} of a node: not ready while it starts or closes ({@code serving} false); a node on its own (a
 * static map) is ready once serving: its store is open and its ports answer; a cluster node also needs to be in the
 * committed map (joined), to hold its lease, and none of the ranges it holds may be FENCED.
 */
public final class NodeReadiness implements Readiness
{
    private final BooleanSupplier serving;
    private final Supplier<ClusterView> view;

    /**
     * @param serving true from the end of the node's start until it begins to close.
     * @param view    the node's cluster view (null until it is started).
     */
    public NodeReadiness(final BooleanSupplier serving, final Supplier<ClusterView> view)
    {
        this.serving = serving;
        this.view = view;
    }

    @Override
    public State state()
    {
        final ClusterView v = view.get();
        if (!serving.getAsBoolean() || v == null)
        {
            return State.notReady("not serving: starting or closing");
        }
        final ClusterState state = v.current();
        final int self = v.localNodeId();
        int held = 0;
        for (final SlotRange r : state.ranges())
        {
            if (ClusterMeters.roleOf(r, self) == null)
            {
                continue;
            }
            held++;
            if (r.state() == SlotRange.State.FENCED)
            {
                return State.notReady("range " + r.firstSlot() + "-" + r.lastSlot() + " is fenced");
            }
        }
        if (v instanceof StaticClusterView)
        {
            return State.ready(held);
        }
        if (state.member(self) == null)
        {
            return State.notReady("not joined: node " + self + " is not in the cluster map (epoch " + state.epoch() +
                ")");
        }
        if (!v.holdsLease(System.nanoTime()))
        {
            return State.notReady("lease not held: the node may not answer writes");
        }
        return State.ready(held);
    }
}
