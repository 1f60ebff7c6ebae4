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
 * <pre>
 *   setting                default        meaning
 *   cluster.voters         (none)         id@host:raftPort,... the coordination group's voters (3 or 5); setting it
 *                                         turns cluster mode on. A node listed is a voter; others only follow
 *   cluster.replicas       1              backups per slot range (replication factor - 1), used at the first layout
 *   cluster.initialNodes   (voter count)  members that must join before the slots are first laid out
 *   cluster.leaseMs        2000           node lease; renewed every lease/3; a silent node loses its ranges after
 *                                         lease * maxClockDrift on the leader's clock
 *   cluster.maxClockDrift  1.1            bound on how much faster one node's monotonic clock may run than another's
 *   cluster.raftDir        data.dir/raft  the Raft log and snapshots of this voter
 *   cluster.raftPort       0              a node not in cluster.voters runs a Raft server on this port, so that
 *                                         an operator can make it a voter (add-voter); 0: none
 *   cluster.electionTimeoutMs 800         a voter that hears no leader for a random time between this and twice this
 *                                         starts an election; raise it where the group's hosts stall (emulation, a
 *                                         loaded VM, a slow network), keeping 2x it well under cluster.leaseMs
 * </pre>
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
    /** Election timeouts of 0.8-1.6 s: failover within about a lease, yet no spurious election on a busy two-core host. */
    public static final long DEFAULT_ELECTION_TIMEOUT_MS = 800;

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

    /** Defaults of the {@code cluster.*} settings ({@code null}: none or derived). */
    public static final Map<String, String> DEFAULTS = defaults();

    private static Map<String, String> defaults()
    {
        final Map<String, String> m = new java.util.LinkedHashMap<>();
        m.put("cluster.voters", null);
        m.put("cluster.replicas", "1");
        m.put("cluster.initialNodes", null);
        m.put("cluster.leaseMs", "2000");
        m.put("cluster.maxClockDrift", "1.1");
        m.put("cluster.raftDir", null);
        m.put("cluster.raftPort", "0");
        m.put("cluster.electionTimeoutMs", Long.toString(DEFAULT_ELECTION_TIMEOUT_MS));
        return java.util.Collections.unmodifiableMap(m);
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

    /** Parse from the node's settings (names as in the table above). */
    public static ClusterSettings parse(final Map<String, String> s, final Path dataDir)
    {
        final String spec = s.get("cluster.voters");
        final List<Voter> voters = spec == null || spec.isBlank() ? List.of() : parseVoters(spec);
        final int replicas = intValue(s, "cluster.replicas", "1", 0, 15);
        final int initialNodes = s.get("cluster.initialNodes") == null ? Math.max(1, voters.size()) :
            intValue(s, "cluster.initialNodes", "1", 1, 4096);
        final long leaseMillis = intValue(s, "cluster.leaseMs", "2000", 100, 600_000);
        final double drift;
        try
        {
            drift = Double.parseDouble(s.getOrDefault("cluster.maxClockDrift", "1.1").trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException("cluster.maxClockDrift must be a number like 1.1: '" +
                s.get("cluster.maxClockDrift") + "'");
        }
        if (!(drift >= 1.0 && drift <= 10.0))
        {
            throw new ConfigException("cluster.maxClockDrift must be between 1.0 and 10: " + drift);
        }
        final String dir = s.get("cluster.raftDir");
        final int raftPort = intValue(s, "cluster.raftPort", "0", 0, 65_535);
        final long electionTimeout = intValue(s, "cluster.electionTimeoutMs",
            Long.toString(DEFAULT_ELECTION_TIMEOUT_MS), 100, 60_000);
        return new ClusterSettings(voters, replicas, initialNodes, leaseMillis, drift,
            dir == null || dir.isBlank() ? dataDir.resolve("raft") : Path.of(dir.trim()), raftPort, electionTimeout);
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
                throw new ConfigException("cluster.voters entry '" + p + "' must look like id@host:raftPort");
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
                throw new ConfigException("cluster.voters entry '" + p + "': id and port must be numbers");
            }
            if (id < 0 || port < 1 || port > 65_535)
            {
                throw new ConfigException("cluster.voters entry '" + p + "': id >= 0 and port 1..65535");
            }
            if (!ids.add(id))
            {
                throw new ConfigException("cluster.voters: node id " + id + " appears twice");
            }
            voters.add(new Voter(id, p.substring(at + 1, colon), port));
        }
        return voters;
    }

    private static int intValue(final Map<String, String> s, final String name, final String dflt, final int min,
        final int max)
    {
        final String v = s.getOrDefault(name, dflt);
        final int n;
        try
        {
            n = Integer.parseInt((v == null ? dflt : v).trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException(name + " must be a whole number: '" + v + "'");
        }
        if (n < min || n > max)
        {
            throw new ConfigException(name + " must be between " + min + " and " + max + ": " + n);
        }
        return n;
    }
}
