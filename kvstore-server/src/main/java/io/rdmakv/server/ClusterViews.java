package io.rdmakv.server;

import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.cluster.StaticClusterView;
import io.rdmakv.server.cluster.ratis.RatisClusterView;
import io.rdmakv.server.config.ClusterNode;
import io.rdmakv.server.config.ServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/** Which {@link ClusterView} a node runs with: Ratis in cluster mode ({@code cluster.voters}), else a fixed map. */
final class ClusterViews
{
    private static final Logger LOG = LoggerFactory.getLogger(ClusterViews.class);

    private ClusterViews()
    {
    }

    /**
     * The view of a node whose ports are bound at {@code controlPort} and {@code dataPort}, serving RESP on
     * {@code respPort} (0: not).
     */
    static ClusterView start(final ServerConfig config, final int controlPort, final int dataPort, final int respPort)
    {
        if (!config.cluster().enabled())
        {
            return new StaticClusterView(config.nodeId(), staticState(config, controlPort, dataPort, respPort));
        }
        final ClusterMember member = new ClusterMember(config.nodeId(), config.advertisedHost(), controlPort, dataPort,
            respPort);
        final RatisClusterView view;
        try
        {
            view = RatisClusterView.start(config.cluster(), member, config.security().tls());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ServerStartException(ex.getMessage(), ex); // e.g. TLS without a CA: the group needs mutual TLS
        }
        LOG.info("cluster mode: node {} joins the group of (bootstrap) voters {} as {} (lease {} ms, drift {}, {} backup(s) per " +
            "range)", config.nodeId(), config.cluster().voters(),
            config.cluster().voter(config.nodeId()) != null ? "a voter" : config.cluster().raftPort() != 0 ?
                "a follower with a Raft server on port " + config.cluster().raftPort() + " (add-voter makes it a voter)" :
                "a follower", config.cluster().leaseMillis(),
            config.cluster().maxClockDrift(), config.cluster().replicas());
        return view;
    }

    /**
     * The fixed map of {@code cluster.nodes} (or this node alone) as a cluster state at epoch 1: slots in a gap of
     * the map are this node's, and this node's own entry takes its bound ports.
     */
    static ClusterState staticState(final ServerConfig config, final int controlPort, final int dataPort,
        final int respPort)
    {
        final List<ClusterMember> members = new ArrayList<>();
        final int[] owner = new int[ClusterState.HASH_SLOT_COUNT];
        java.util.Arrays.fill(owner, config.nodeId());
        for (final ClusterNode n : config.clusterNodes())
        {
            final boolean self = n.nodeId() == config.nodeId();
            if (members.stream().noneMatch(m -> m.nodeId() == n.nodeId()))
            {
                members.add(new ClusterMember(n.nodeId(), self ? config.advertisedHost() : n.host(),
                    self ? controlPort : n.controlPort(), self ? dataPort : 0, self ? respPort : 0));
            }
            java.util.Arrays.fill(owner, n.firstSlot(), n.lastSlot() + 1, n.nodeId());
        }
        final List<SlotRange> ranges = new ArrayList<>();
        int first = 0;
        for (int hashSlot = 1; hashSlot <= ClusterState.HASH_SLOT_COUNT; hashSlot++)
        {
            if (hashSlot == ClusterState.HASH_SLOT_COUNT || owner[hashSlot] != owner[first])
            {
                ranges.add(new SlotRange(first, hashSlot - 1, 1, owner[first], List.of(), List.of(),
                    SlotRange.State.LIVE));
                first = hashSlot;
            }
        }
        return new ClusterState(1, members, ranges);
    }


    /** The map a WELCOME carries: each range with its primary's control address, its epoch and its backups. */
    static List<io.rdmakv.protocol.wire.ClusterNode> wireMap(final ClusterState state)
    {
        final List<io.rdmakv.protocol.wire.ClusterNode> map = new ArrayList<>();
        for (final SlotRange r : state.ranges())
        {
            final ClusterMember primary = state.member(r.primary());
            if (primary != null)
            {
                map.add(new io.rdmakv.protocol.wire.ClusterNode(primary.nodeId(), primary.host(),
                    primary.controlPort(), r.firstSlot(), r.lastSlot(), r.epoch(), r.backups()));
            }
        }
        return map;
    }
}
