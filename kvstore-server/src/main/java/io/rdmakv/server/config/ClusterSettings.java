package io.rdmakv.server.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How a node takes part in a replicated cluster ({@code cluster.*} settings). Without {@code cluster.voters} the node
 * runs alone (or with a static {@code cluster.nodes} map) and no coordination service starts.
 *
 * <p>Each setting (name, default, bounds, meaning) is declared once in {@link ClusterKeys}.
 *
 * <p>{@code cluster.voters} is the bootstrap list: once an operator changed the voters, the committed state names
 * them and every node follows it (a node needs one reachable current voter in its list to find the group).
 *
 * @param voters       the voters, empty when cluster mode is off.
 * @param replicas     backups per range.
 * @param initialNodes members before the first layout.
 * @param leaseMillis  node lease.
 * @param maxClockDrift drift bound (at least 1.0).
 * @param raftDir      Raft storage directory.
 * @param raftPort     this node's Raft port when it is not in {@code voters} (0: none).
 * @param electionTimeoutMillis the Raft election timeout's lower bound (its upper bound is twice it).
 */
public record ClusterSettings(List<Voter> voters, int replicas, int initialNodes, long leaseMillis,
    double maxClockDrift, Path raftDir, int raftPort, long electionTimeoutMillis)
{
    /**
     * Election timeouts of 0.2-0.4 s: a killed leader is replaced well within the default lease (600 ms), so a kill -9
     * of a primary that is also the leader fails over within a second (docs/cluster.md, "Failover time").
     */
    public static final long DEFAULT_ELECTION_TIMEOUT_MS = 200;

    /**
     * One voter of the coordination group.
     *
     * @param nodeId   the node's id.
     * @param host     where its Raft port listens.
     * @param raftPort its Raft (gRPC) port.
     */
    public record Voter(int nodeId, String host, int raftPort)
    {
        public String address()
        {
            return host + ':' + raftPort;
        }
    }

    public ClusterSettings
    {
        voters = List.copyOf(voters);
    }

    /** Settings without a Raft port beyond the {@code cluster.voters} entries, default election timeout. */
    public ClusterSettings(final List<Voter> voters, final int replicas, final int initialNodes, final long leaseMillis,
        final double maxClockDrift, final Path raftDir)
    {
        this(voters, replicas, initialNodes, leaseMillis, maxClockDrift, raftDir, 0);
    }

    /** Settings with the default election timeout. */
    public ClusterSettings(final List<Voter> voters, final int replicas, final int initialNodes, final long leaseMillis,
        final double maxClockDrift, final Path raftDir, final int raftPort)
    {
        this(voters, replicas, initialNodes, leaseMillis, maxClockDrift, raftDir, raftPort,
            DEFAULT_ELECTION_TIMEOUT_MS);
    }

    /** The port {@code nodeId} runs its Raft server on: its {@code cluster.voters} entry's, else raftPort (0: none). */
    public int raftPortOf(final int nodeId)
    {
        final Voter v = voter(nodeId);
        return v != null ? v.raftPort() : raftPort;
    }

    /** True when this node runs in cluster mode (coordinated by the voters). */
    public boolean enabled()
    {
        return !voters.isEmpty();
    }

    /** The voter entry of {@code nodeId}, or null when that node is not a voter. */
    public Voter voter(final int nodeId)
    {
        for (final Voter v : voters)
        {
            if (v.nodeId() == nodeId)
            {
                return v;
            }
        }
        return null;
    }

    /** Parse from the node's settings ({@link ClusterKeys}; a setting not in {@code s} takes its default). */
    public static ClusterSettings parse(final Map<String, String> s, final Path dataDir)
    {
        final List<Voter> voters = ClusterKeys.VOTERS.isGiven(s) ? parseVoters(ClusterKeys.VOTERS.get(s)) : List.of();
        final Integer initialNodes = ClusterKeys.INITIAL_NODES.get(s);
        return new ClusterSettings(voters, ClusterKeys.REPLICAS.get(s),
            initialNodes == null ? Math.max(1, voters.size()) : initialNodes, ClusterKeys.LEASE_MS.get(s),
            ClusterKeys.MAX_CLOCK_DRIFT.get(s),
            ClusterKeys.RAFT_DIR.isGiven(s) ? ClusterKeys.RAFT_DIR.get(s) : dataDir.resolve("raft"),
            ClusterKeys.RAFT_PORT.get(s), ClusterKeys.ELECTION_TIMEOUT_MS.get(s));
    }

    /** Parse {@code id@host:raftPort,...}; ids and addresses must be unique. */
    public static List<Voter> parseVoters(final String spec)
    {
        final List<Voter> voters = new ArrayList<>();
        final Set<Integer> ids = new HashSet<>();
        for (final String part : spec.split(","))
        {
            final String p = part.trim();
            if (p.isEmpty())
            {
                continue;
            }
            final int at = p.indexOf('@');
            final int colon = p.lastIndexOf(':');
            if (at <= 0 || colon <= at + 1 || colon == p.length() - 1)
            {
                throw new ConfigException(ClusterKeys.VOTERS + " entry '" + p + "' must look like id@host:raftPort");
            }
            final int id;
            final int port;
            try
            {
                id = Integer.parseInt(p.substring(0, at));
                port = Integer.parseInt(p.substring(colon + 1));
            }
            catch (final NumberFormatException ex)
            {
                throw new ConfigException(ClusterKeys.VOTERS + " entry '" + p + "': id and port must be numbers");
            }
            if (id < 0 || port < 1 || port > 65_535)
            {
                throw new ConfigException(ClusterKeys.VOTERS + " entry '" + p + "': id >= 0 and port 1..65535");
            }
            if (!ids.add(id))
            {
                throw new ConfigException(ClusterKeys.VOTERS + ": node id " + id + " appears twice");
            }
            voters.add(new Voter(id, p.substring(at + 1, colon), port));
        }
        return voters;
    }
}
