package io.rdmakv.server;

import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.NodeClock;
import io.rdmakv.server.cluster.OwnershipPublisher;
import io.rdmakv.server.cluster.ReadLeaseGrant;
import io.rdmakv.server.cluster.TakeOvers;
import io.rdmakv.server.cluster.ratis.ClusterAdmin;
import io.rdmakv.server.cluster.ratis.RatisClusterView;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.AdminCommands;
import io.rdmakv.server.handler.RequestHandler;
import io.rdmakv.server.handler.SlotRouter;
import io.rdmakv.server.replication.Replication;

import java.util.List;

/**
 * How a node follows its cluster: the routing it starts with before its ports are bound, the ownership words a
 * fixed map publishes at once, and, once bound, its {@link ClusterView} (one given by the embedder, Ratis in cluster
 * mode, else the fixed map of its settings) with everything that follows the view: request handling, replication,
 * ownership words, read leases, fencing on a lost lease, and the admin commands. Used by {@link KvServer} on its
 * start-up thread only.
 */
final class ClusterWiring
{
    /** Range epoch of the ownership words of a fixed map (no coordinator ever changes it). */
    private static final long STATIC_RANGE_EPOCH = 1;
    /** Taken off the remaining node lease in every read lease granted: an answer's time on the wire, and rounding. */
    private static final long READ_LEASE_MARGIN_NANOS = 50_000_000L;

    private final ServerConfig config;
    /** A cluster view given by the embedder (tests), or null: then the one built from the settings. */
    private final ClusterView givenView;
    /** The view once started (read by the control plane's and the metrics' threads), null before. */
    private volatile ClusterView started;
    /** The operator's commands once {@link #follow} made them (read by the control plane's threads). */
    private volatile AdminCommands admin = AdminCommands.NONE;

    ClusterWiring(final ServerConfig config, final ClusterView givenView)
    {
        this.config = config;
        this.givenView = givenView;
    }

    /**
     * The router requests follow until the cluster view starts (it needs the bound ports): the given view's state,
     * or, in cluster mode, nothing, else the static map.
     */
    SlotRouter routerUntilViewStarts()
    {
        final ClusterState untilViewStarts = givenView != null ? givenView.current() : config.cluster().enabled() ?
            new ClusterState(0, List.of(), List.of()) :
            ClusterViews.staticState(config, config.advertisedControlPort(config.controlPort()),
                config.advertisedDataPort(config.dataPort()), 0);
        return SlotRouter.of(untilViewStarts, config.nodeId(),
            config.advertisedHost() + ':' + config.advertisedControlPort(config.controlPort()));
    }

    /**
     * One-sided readers trust the pool only for the slots its ownership words say LIVE: a static node publishes
     * them now, a cluster node as its view commits them ({@link #follow}).
     */
    void publishStaticOwnership(final OwnershipPublisher ownership, final SlotRouter router)
    {
        if (givenView == null && !config.cluster().enabled())
        {
            ownership.publishStatic(router::isLocal, STATIC_RANGE_EPOCH);
        }
    }

    /** The given view (not ours to close), else the one the settings ask for, started and pushed on {@code opened}. */
    ClusterView start(final int advertisedControlPort, final int advertisedDataPort, final int respPort,
        final OpenedResources opened)
    {
        if (givenView != null)
        {
            started = givenView;
            return givenView;
        }
        final ClusterView view = ClusterViews.start(config, advertisedControlPort, advertisedDataPort, respPort);
        opened.push(view);
        started = view;
        return view;
    }

    /**
     * The node's admin commands, for the control plane built before the view can start (the view needs its bound
     * ports): refused until {@link #follow}, then the cluster's ({@link ClusterAdmin}). Any thread.
     */
    AdminCommands admin()
    {
        return command -> admin.run(command);
    }

    /** The view {@link #start} started, for other threads (null before). */
    ClusterView started()
    {
        return started;
    }

    /**
     * Make the node follow {@code clusterView}: request handling always; in a replicated cluster also replication,
     * the ownership words, read leases and (Ratis) fencing while the node's lease is lost; the admin commands
     * ({@link #admin}).
     *
     * @param self this node's advertised control address, {@code host:port}.
     */
    void follow(final ClusterView clusterView, final String self, final RequestHandler handler,
        final Replication replication, final OwnershipPublisher ownership)
    {
        final boolean replicated = givenView != null || config.cluster().enabled();
        // A given view with an expiring lease (tests) is checked as a Ratis one is.
        final boolean checkLease = config.cluster().enabled() ||
            givenView != null && givenView.leaseDeadlineNanos() != Long.MAX_VALUE;
        // One decision of which ranges were taken over and are held until reconciled, for routing and the ownership
        // words alike; the reconciles release them.
        final TakeOvers takeOvers = replicated ? new TakeOvers(clusterView.localNodeId()) : null;
        if (takeOvers != null)
        {
            takeOvers.follow(clusterView);
        }
        handler.follow(clusterView, self, checkLease, NodeClock.configured(), replicated ?
            new ReadLeaseGrant(clusterView, NodeClock.configured(), READ_LEASE_MARGIN_NANOS) : null, takeOvers);
        if (replicated)
        {
            replication.follow(clusterView, self, takeOvers);
            takeOvers.subscribe(ownership::apply);
            if (clusterView instanceof RatisClusterView ratis)
            {
                ratis.onLeaseLost(ownership::fenceAll);
                ratis.onLeaseRegained(() -> takeOvers.republish(ownership::apply));
            }
        }
        admin = new ClusterAdmin(clusterView, () -> replication.lagJson(clusterView));
    }
}
