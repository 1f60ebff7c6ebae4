package io.rdmakv.server.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The settings reference, from the code: every name {@link ServerConfig#KNOWN} accepts, its default there and its
 * meaning here. {@code rdmakv server --list-settings} prints {@link #text()} ({@code =json}: {@link #json()}); {@code docs/settings.md} is
 * {@link #markdown()}, and {@code ServerCommandHelpTest} fails when the file and the code differ (regenerate with
 * {@code rdmakv server --list-settings=markdown > docs/settings.md}).
 */
public final class SettingsReference
{
    /** Meaning of each setting, in {@link ServerConfig#KNOWN}'s order. */
    public static final Map<String, String> MEANINGS;

    static
    {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("node.id", "this node's id in the cluster map");
        m.put("data.dir", "RocksDB directory");
        m.put("durability", "DEFAULT (survives kill -9) | FSYNC (survives power loss, group commit)");
        m.put("replication.timeoutMs", "how long a primary waits for an in-sync backup's acknowledgement before it " +
            "asks the coordinator to remove that backup from the in-sync set");
        m.put("replication.ackPollMicros", "how long a primary's request thread keeps polling (yielding the core) for " +
            "an in-sync backup's acknowledgement before it sleeps until the answer wakes it, 0 to 10000; 0 = sleep at " +
            "once; worth it only with a core to spare (on an oversubscribed host the yields cost more than the wake-up)");
        m.put("store.writeBufferSize", "RocksDB memtable size (write_buffer_size), 1 MiB to 1 GiB; the insert runs on " +
            "the request thread, a small memtable stays in cache");
        m.put("store.walRecovery", "a damaged write-ahead log: tolerate-tail (drop a last record cut short by a " +
            "crash, refuse any other damage naming file, offset and fix) | strict (refuse a torn last record too) | " +
            "point-in-time (keep the writes before the damage) | skip-corrupted (drop only the damaged records); the " +
            "last two copy the WAL aside and log the loss at ERROR");
        m.put("store.diskReserve", "space preallocated in data.dir (file disk-reserve) and released when the disk " +
            "is full (ENOSPC): RocksDB resumes, PUTs are refused (DISK_FULL) and DELETEs served until twice this " +
            "is free again, then the reserve is re-created; 0 = none; raised to store.writeBufferSize when " +
            "smaller (RocksDB's resume flushes the memtable)");
        m.put("pool.size", "pinned, registered pool (header + index + extents)");
        m.put("pool.partitionSize", "pool view partition (power of two, at most 1 GiB)");
        m.put("pool.pin", "AUTO | REQUIRED | BEST_EFFORT | OFF (AUTO: REQUIRED on verbs, else BEST_EFFORT)");
        m.put("pool.hugePages", "NONE | TRANSPARENT | EXPLICIT");
        m.put("pool.reclaimGraceMs", "grace period before a freed extent is reused (longer than a client read)");
        m.put("pool.scribbleRetired", "test/debug: overwrite an extent the moment it is superseded (stale one-sided " +
            "reads then fail their check)");
        m.put("index.avgEntryBytes", "expected average extent size; sizes the index (at most 16 B of index per key)");
        m.put("transport", "auto | tcp | verbs | shm: the node's main transport (auto: verbs when usable, else tcp); " +
            "it serves TCP beside it, and shm as transport.serveShm says");
        m.put("transport.serveShm", "auto | true | false: also serve shm to clients on this host (in its network " +
            "namespace); an auto client there picks it. auto: beside a tcp main transport, where the pool's kind of " +
            "memory costs nothing, never beside verbs (the pool would lose the huge pages its adapter wants) or with " +
            "pool.hugePages, and without it (logged why) where shm cannot work; true: beside any. TCP is always " +
            "served beside verbs or shm");
        m.put("transport.maxInflightPerEndpoint", "operations one data endpoint keeps in flight (1 to 16384); more " +
            "wait in its pending queue");
        m.put("host", "bind address of the control, data and metrics ports");
        m.put("advertised.host", "address clients and peers are told (WELCOME, cluster map, redirects); host when " +
            "not a wildcard, else the first up, non-loopback, non-link-local interface address (IPv4 first; none: " +
            "127.0.0.1 with a WARN). Behind NAT or Docker -p: the address they reach");
        m.put("advertised.controlPort", "control port clients and peers are told (cluster map, redirects); default: " +
            "the bound one. Behind Docker -p: the host's side of the mapping");
        m.put("advertised.dataPort", "data port clients and peers are told (the WELCOME's transport address); " +
            "default: the bound one. Behind Docker -p: the host's side of the mapping");
        m.put("control.port", "control plane, the port clients dial (HELLO/WELCOME handshake); 0 = any free port");
        m.put("data.port", "data plane (the transport's listener: PUT/DELETE/GET/STATS); 0 = any free port");
        m.put("data.tcpPort", "TCP listener when TCP is served beside another transport (a verbs or shm node); 0 = " +
            "any free port. A TCP-only node serves on data.port");
        m.put("data.shmPort", "shm listener (abstract socket @rdmakv-shm-PORT) when shm is served beside another " +
            "transport; 0 = any free name");
        m.put("advertised.tcpPort", "TCP port clients are told when TCP is served beside another transport; " +
            "default: the bound one. Behind Docker -p: the host's side of the mapping");
        m.put("control.maxFrameBytes", "largest control-plane frame accepted");
        m.put("limits.maxKeyBytes", "largest key");
        m.put("limits.maxValueBytes", "largest value");
        m.put("limits.maxMessageBytes", "largest data-plane message (default: header + key + value + slack)");
        m.put("limits.maxConnections", "authenticated connections per plane (control: after a WELCOME; data: after " +
            "a valid ATTACH); beyond, a HELLO gets REJECT(BUSY), an ATTACH BUSY");
        m.put("limits.maxUnauthenticated", "connections per plane that have not authenticated yet; a newcomer " +
            "beyond sheds the oldest");
        m.put("limits.maxUnauthenticatedPerSource", "of those from one source address (IPv6: one /64); beyond, its " +
            "oldest is shed");
        m.put("auth.handshakeTimeoutMs", "how long a connection may stay unauthenticated before it is closed (and a " +
            "control connection may stay open after its WELCOME)");
        m.put("auth.secret", "shared secret a client must present in HELLO; none = open. On the command line it " +
            "shows in ps: prefer auth.secretFile (flag --secret-file) or the RDMAKV_SECRET environment variable");
        m.put("auth.failedCredentialBurst", "wrong credentials one source address may send at once; then ...");
        m.put("auth.failedCredentialIntervalMs", "... one per interval: a HELLO from it waits for its turn (REJECT " +
            "BUSY if that is past the handshake timeout); other sources are not slowed");
        m.put("auth.ticketTtlMs", "how long a WELCOME's session ticket may wait for the ATTACH that opens a data " +
            "endpoint (single use)");
        m.put("cluster.nodes", "id@host:controlPort:firstSlot-lastSlot,... (16384 slots in total; default: this " +
            "node, every slot)");
        m.put("cluster.voters", "id@host:raftPort,... the coordination group's voters at bootstrap (3 or 5); setting " +
            "it turns cluster mode on (Apache Ratis); a node listed is a voter, others only follow; once the voters " +
            "changed (add-voter, remove-voter) the committed state names them");
        m.put("cluster.replicas", "backups per slot range (replication factor - 1), used at the first layout");
        m.put("cluster.initialNodes", "members that must join before the slots are first laid out (default: the " +
            "voter count)");
        m.put("cluster.leaseMs", "node lease; renewed every lease/3; a silent node loses its ranges after lease * " +
            "maxClockDrift on the leader's clock");
        m.put("cluster.maxClockDrift", "bound on how much faster one node's monotonic clock may run than another's");
        m.put("cluster.raftDir", "the Raft log and snapshots of this voter (default: data.dir/raft)");
        m.put("cluster.raftPort", "a node not in cluster.voters runs a Raft server on this port, so that 'rdmakv " +
            "cluster add-voter' can make it a voter; 0 = none");
        m.put("cluster.electionTimeoutMs", "a voter that hears no leader for a random time between this and twice " +
            "this starts an election; raise it where the group's hosts stall (emulation, a loaded VM, a slow network), " +
            "keeping twice it well under cluster.leaseMs");
        m.put("metrics.port", "Prometheus endpoint http://host:port/metrics, and /health/live, /health/ready; 0 = off");
        m.put("resp.port", "the RESP port: Redis clients (RESP2, RESP3 by HELLO 3) on host:port, served by the node's " +
            "own request handling (docs/resp.md); 0 = off");
        m.put("resp.maxInlineBytes", "longest inline RESP command (a line not starting with *); longer: -ERR " +
            "Protocol error and the connection is closed");
        m.put("resp.maxArguments", "most elements in one RESP command array; more: -ERR Protocol error and the " +
            "connection is closed");
        m.put("resp.maxPendingReplies", "replies one RESP connection may have waiting (pipelined commands not " +
            "answered yet) before the node stops reading it until they are written");
        m.put("auth.secretFile", "file whose first line is auth.secret (flag --secret-file); a file group or others " +
            "may read gets a WARN; not together with auth.secret");
        m.put("tls.certFile", "this node's certificate chain (PEM): TLS 1.3 on the control port and the tcp data " +
            "port; with tls.keyFile; none = plaintext (docs/security.md)");
        m.put("tls.keyFile", "the private key of tls.certFile (PEM, PKCS#8)");
        m.put("tls.caFile", "CA certificates (PEM) that sign the clients' certificates, for tls.clientAuth");
        m.put("tls.clientAuth", "none | optional | required: whether the node asks a client for a certificate " +
            "signed by tls.caFile");
        MEANINGS = java.util.Collections.unmodifiableMap(m);
    }

    /** How sizes are written (the convention of {@link ServerConfig#parseSize}). */
    public static final String SIZES = "Sizes: KiB, MiB, GiB, TiB are binary (1.5GiB = 1610612736 B); KB, MB, GB, TB " +
        "decimal (64MB = 64000000 B); a bare k, m, g, t is binary as in -Xmx; fractions only when whole bytes.";

    /** Settings passed through to the transport as properties. */
    public static final String PASS_THROUGH = "tcp.*, verbs.* and shm.*: passed to the transports as properties.";

    private static final ObjectMapper JSON = new ObjectMapper();

    private SettingsReference()
    {
    }

    /** One line per setting: name, default, meaning; then the size convention. */
    public static String text()
    {
        final StringBuilder sb = new StringBuilder(String.format("%-34s %-14s %s%n", "SETTING", "DEFAULT", "MEANING"));
        ServerConfig.KNOWN.forEach((name, def) -> sb.append(String.format("%-34s %-14s %s%n", name,
            def == null ? "-" : def, meaning(name))));
        return sb.append(PASS_THROUGH).append(System.lineSeparator()).append(SIZES).append(System.lineSeparator())
            .toString();
    }

    /**
     * Every setting as JSON: {@code {"settings":[{"name":"pool.size","default":"1GiB","meaning":"..."}],
     * "passThrough":["tcp.*","verbs.*","shm.*"],"sizes":"..."}} ({@code default} null where there is none).
     */
    public static String json()
    {
        final ObjectNode root = JSON.createObjectNode();
        final ArrayNode settings = root.putArray("settings");
        ServerConfig.KNOWN.forEach((name, def) -> settings.addObject().put("name", name).put("default", def)
            .put("meaning", meaning(name)));
        root.putArray("passThrough").add("tcp.*").add("verbs.*").add("shm.*");
        root.put("sizes", SIZES);
        try
        {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + System.lineSeparator();
        }
        catch (final JsonProcessingException ex)
        {
            throw new IllegalStateException("cannot write the settings as JSON", ex);
        }
    }

    /** The page {@code docs/settings.md}. */
    public static String markdown()
    {
        final StringBuilder sb = new StringBuilder("# Server settings\n\n")
            .append("Generated from the code by `rdmakv server --list-settings=markdown` (`SettingsReference`); ")
            .append("`ServerCommandHelpTest` fails when this page and the code differ. Set them in the `--config` ")
            .append("properties file or with `-S name=value`; flags override the file.\n\n")
            .append("| setting | default | meaning |\n|---|---|---|\n");
        ServerConfig.KNOWN.forEach((name, def) -> sb.append("| `").append(name).append("` | ")
            .append(def == null ? "-" : "`" + def + "`").append(" | ").append(meaning(name).replace("|", "\\|"))
            .append(" |\n"));
        return sb.append('\n').append(PASS_THROUGH).append("\n\n").append(SIZES).append('\n').toString();
    }

    private static String meaning(final String name)
    {
        final String m = MEANINGS.get(name);
        if (m == null)
        {
            throw new IllegalStateException("setting " + name + " has no meaning in SettingsReference.MEANINGS");
        }
        return m;
    }
}
