package io.rdmakv.server.config;

import java.nio.file.Path;
import java.util.List;

/**
 * Settings of a node's place in a cluster: the static map ({@code cluster.nodes}) or the replicated cluster's
 * coordination ({@code cluster.voters} and the rest, read into {@link ClusterSettings}). Each is declared once here;
 * see {@link Setting}.
 */
public final class ClusterKeys
{
    public static final Setting<String> NODES = Setting.text("cluster.nodes", "list", null, t -> t,
        "id@host:controlPort:firstSlot-lastSlot,... (16384 slots in total; default: this node, every slot)");

    public static final Setting<String> VOTERS = Setting.text("cluster.voters", "list", null, t -> t,
        "id@host:raftPort,... the coordination group's voters at bootstrap (3 or 5); setting it turns cluster mode " +
            "on (Apache Ratis); a node listed is a voter, others only follow; once the voters changed (add-voter, " +
            "remove-voter) the committed state names them");

    public static final Setting<Integer> REPLICAS = Setting.whole("cluster.replicas", "int", 1, 0, 15,
        "backups per slot range (replication factor - 1), used at the first layout");

    public static final Setting<Integer> INITIAL_NODES = Setting.whole("cluster.initialNodes", "int", null, 1, 4096,
        "members that must join before the slots are first laid out (default: the voter count)");

    public static final Setting<Integer> LEASE_MS = Setting.whole("cluster.leaseMs", "ms", 600, 100, 600_000,
        "node lease; renewed every lease/3; a silent node loses its ranges after lease * maxClockDrift on the " +
            "leader's clock");

    public static final Setting<Double> MAX_CLOCK_DRIFT = Setting.decimal("cluster.maxClockDrift", "1.1", 1.0, 10.0,
        "bound on how much faster one node's monotonic clock may run than another's");

    public static final Setting<Path> RAFT_DIR = Setting.path("cluster.raftDir", null,
        "the Raft log and snapshots of this voter (default: data.dir/raft)");

    public static final Setting<Integer> RAFT_PORT = NetworkKeys.port("cluster.raftPort", 0, 0, "a node not in " +
        "cluster.voters runs a Raft server on this port, so that 'rdmakv cluster add-voter' can make it a voter; " +
        "0 = none");

    public static final Setting<Integer> ELECTION_TIMEOUT_MS = Setting.whole("cluster.electionTimeoutMs", "ms",
        (int)ClusterSettings.DEFAULT_ELECTION_TIMEOUT_MS, 100, 60_000, "a voter that hears no leader for a random " +
            "time between this and twice this starts an election; raise it where the group's hosts stall " +
            "(emulation, a loaded VM, a slow network), keeping twice it well under cluster.leaseMs");

    /** In the order {@code --list-settings} shows them. */
    static final List<Setting<?>> ALL = List.of(NODES, VOTERS, REPLICAS, INITIAL_NODES, LEASE_MS, MAX_CLOCK_DRIFT,
        RAFT_DIR, RAFT_PORT, ELECTION_TIMEOUT_MS);

    private ClusterKeys()
    {
    }
}
