package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.config.ClusterSettings;
import org.agrona.concurrent.NanoClock;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One voter of the coordination group: a Ratis server (gRPC) with the {@link ClusterStateMachine}, its Raft log and
 * snapshots under {@code cluster.raftDir}. The group id is fixed (every rdmakv cluster has one group). A node in
 * {@code cluster.voters} starts with those peers; a node with only {@code cluster.raftPort} starts outside every
 * configuration (Ratis's "initializing" follower: it never campaigns) until the leader adds it with
 * {@code setConfiguration}. A restart recovers the configuration Ratis committed (log and snapshot metadata), which
 * wins over the peers passed at start.
 */
public final class RaftVoter implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(RaftVoter.class);

    /** The one coordination group's id. */
    public static final RaftGroupId GROUP_ID =
        RaftGroupId.valueOf(UUID.nameUUIDFromBytes("rdmakv-cluster".getBytes(StandardCharsets.US_ASCII)));

    private final RaftServer server;
    private final ClusterStateMachine stateMachine;
    private final LeaseWatchdog watchdog;

    private RaftVoter(final RaftServer server, final ClusterStateMachine stateMachine, final LeaseWatchdog watchdog)
    {
        this.server = server;
        this.stateMachine = stateMachine;
        this.watchdog = watchdog;
    }

    /**
     * Start the voter {@code nodeId} of {@code settings}.
     *
     * @param snapshotEvery log entries between automatic snapshots (the log is purged up to a snapshot).
     * @param onChange      every state with a new cluster epoch (on Ratis's applying thread: must not block).
     * @param parameters    Ratis' TLS ({@link RaftTls#parameters}), or null: in clear.
     */
    public static RaftVoter start(final ClusterSettings settings, final int nodeId, final NanoClock clock,
        final long snapshotEvery, final Consumer<CoordState> onChange, final Parameters parameters)
    {
        final ClusterSettings.Voter self = settings.voter(nodeId);
        final int port = settings.raftPortOf(nodeId);
        if (port == 0)
        {
            throw new IllegalArgumentException("node " + nodeId + " is not among the voters " + settings.voters() +
                " and has no cluster.raftPort");
        }
        if (self != null && settings.raftPort() != 0 && settings.raftPort() != self.raftPort())
        {
            throw new IllegalArgumentException("cluster.raftPort " + settings.raftPort() + " differs from node " +
                nodeId + "'s entry in cluster.voters (" + self.address() + ")");
        }
        if (!RatisFixes.followerCommitFixed())
        {
            LOG.error("the coordination group runs Ratis WITHOUT rdmakv's fix of ServerImplUtils (loaded from {}): " +
                "a voter can wedge for good after leadership changes at the group's first start. Put rdmakv's jar " +
                "ahead of ratis-server's on the class path (the rdmakv.jar launcher does)",
                RatisFixes.serverImplUtilsSource());
        }
        final RaftProperties p = properties(settings);
        RaftServerConfigKeys.setStorageDir(p, List.of(settings.raftDir().toFile()));
        GrpcConfigKeys.Server.setPort(p, port);
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, snapshotEvery);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        final LeaseWatchdog watchdog = new LeaseWatchdog(TimeUnit.MILLISECONDS.toNanos(settings.leaseMillis()),
            settings.maxClockDrift());
        final ClusterStateMachine sm = new ClusterStateMachine(watchdog, clock, onChange);
        try
        {
            Files.createDirectories(settings.raftDir());
            final boolean formatted = Files.isDirectory(settings.raftDir().resolve(GROUP_ID.getUuid().toString()));
            final RaftServer server = RaftServer.newBuilder()
                .setServerId(peerId(nodeId))
                .setGroup(self != null ? group(settings.voters()) : RaftGroup.valueOf(GROUP_ID))
                .setProperties(p)
                .setParameters(parameters)
                .setStateMachine(sm)
                .setOption(formatted ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
                .build();
            server.start();
            return new RaftVoter(server, sm, watchdog);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start the coordination group's voter " + nodeId + " on Raft port " +
                port + " (raft dir " + settings.raftDir() + "): " + ex.getMessage(), ex);
        }
    }

    /** Properties every member of the group (servers and clients) shares. */
    static RaftProperties properties(final ClusterSettings settings)
    {
        final RaftProperties p = new RaftProperties();
        // cluster.electionTimeoutMs, and twice it: Ratis picks each voter's timeout at random in between.
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(settings.electionTimeoutMillis(),
            TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2 * settings.electionTimeoutMillis(),
            TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(
            Math.max(1000, settings.leaseMillis()), TimeUnit.MILLISECONDS));
        return p;
    }

    /** The group of {@code voters}. */
    static RaftGroup group(final List<ClusterSettings.Voter> voters)
    {
        final List<RaftPeer> peers = new ArrayList<>();
        for (final ClusterSettings.Voter v : voters)
        {
            peers.add(peer(v));
        }
        return RaftGroup.valueOf(GROUP_ID, peers);
    }

    static RaftPeer peer(final ClusterSettings.Voter v)
    {
        return RaftPeer.newBuilder().setId(peerId(v.nodeId())).setAddress(v.address()).build();
    }

    static RaftPeerId peerId(final int nodeId)
    {
        return RaftPeerId.valueOf("n" + nodeId);
    }

    /**
     * The voters of the configuration this voter holds when it is stable (no joint consensus under way) and
     * committed; null otherwise, or when the server is gone. Sorted by id.
     */
    public List<ClusterSettings.Voter> committedVoters()
    {
        try
        {
            final RaftServer.Division division = server.getDivision(GROUP_ID);
            final RaftConfiguration conf = division.getRaftConf();
            if (!conf.getPreviousPeers().isEmpty() ||
                conf.getLogEntryIndex() > division.getRaftLog().getLastCommittedIndex())
            {
                return null;
            }
            final List<ClusterSettings.Voter> voters = new ArrayList<>();
            for (final RaftPeer peer : conf.getCurrentPeers())
            {
                final String address = peer.getAddress();
                final int colon = address.lastIndexOf(':');
                voters.add(new ClusterSettings.Voter(Integer.parseInt(peer.getId().toString().substring(1)),
                    address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))));
            }
            voters.sort(Comparator.comparingInt(ClusterSettings.Voter::nodeId));
            return voters.isEmpty() ? null : voters;
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }

    public ClusterStateMachine stateMachine()
    {
        return stateMachine;
    }

    public LeaseWatchdog watchdog()
    {
        return watchdog;
    }

    /** True when this voter is the group's leader now. */
    public boolean isLeader()
    {
        try
        {
            return server.getDivision(GROUP_ID).getInfo().isLeader();
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /** The Raft term this voter is in (the metrics' rdmakv_ratis_term), or -1 when its division cannot be read. */
    public long currentTerm()
    {
        try
        {
            return server.getDivision(GROUP_ID).getInfo().getCurrentTerm();
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    /** The leader's node id as this voter knows it, or -1. */
    public int leaderNodeId()
    {
        try
        {
            final RaftPeerId leader = server.getDivision(GROUP_ID).getInfo().getLeaderId();
            return leader == null ? -1 : Integer.parseInt(leader.toString().substring(1));
        }
        catch (final IOException | NumberFormatException ex)
        {
            return -1;
        }
    }

    /** Where this voter keeps its log (for tests and the operator). */
    public static Path groupDir(final ClusterSettings settings)
    {
        return settings.raftDir().resolve(GROUP_ID.getUuid().toString());
    }

    @Override
    public void close()
    {
        try
        {
            server.close();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
