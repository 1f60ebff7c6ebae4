package io.rdmakv.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.client.HostPort;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.it.support.FreePorts;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.protocol.wire.Admin;
import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.transport.tls.TlsSettings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A replicated cluster of real node processes, shaped as {@code rdmakv cluster local} starts it: node i (from 1)
 * with its own data dir, every node a voter up to three, free ports, tcp. Reads the committed map through the ADMIN
 * status command of any live node.
 */
public final class LocalCluster implements AutoCloseable
{
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One range of the committed map; {@code state}: LIVE, MIGRATING or FENCED. */
    public record Range(int first, int last, long epoch, int primary, List<Integer> backups, String state)
    {
        public boolean contains(final int hashSlot)
        {
            return hashSlot >= first && hashSlot <= last;
        }
    }

    private final List<ServerProcess> nodes = new ArrayList<>();
    private final long leaseMs;
    /** What the test's own admin calls speak ({@link TlsSettings#OFF}: plaintext). */
    private final TlsSettings clientTls;
    /** The shared secret the test's own admin calls present (the nodes' auth.secret), empty for none. */
    private final byte[] adminCredential;

    private LocalCluster(final long leaseMs, final TlsSettings clientTls, final byte[] adminCredential)
    {
        this.leaseMs = leaseMs;
        this.clientTls = clientTls;
        this.adminCredential = adminCredential.clone();
    }

    /**
     * As {@link #start(Path, int, int, long, String...)} with {@code auth.secret} = {@code secret} on every node (the
     * credential their replication links and the test's own admin calls present).
     */
    public static LocalCluster startWithSecret(final Path dir, final int count, final int replicas,
        final long leaseMs, final String secret, final String... extraSettings) throws Exception
    {
        final String[] settings = java.util.Arrays.copyOf(extraSettings, extraSettings.length + 2);
        settings[extraSettings.length] = "auth.secret";
        settings[extraSettings.length + 1] = secret;
        return start(dir, count, replicas, leaseMs, TlsSettings.OFF, false,
            secret.getBytes(java.nio.charset.StandardCharsets.UTF_8), settings);
    }

    /** Start {@code count} nodes with {@code replicas} backups per range and the given lease; wait for the layout. */
    public static LocalCluster start(final Path dir, final int count, final int replicas, final long leaseMs,
        final String... extraSettings) throws Exception
    {
        return start(dir, count, replicas, leaseMs, TlsSettings.OFF, false, new byte[0], extraSettings);
    }

    /** As {@link #start(Path, int, int, long, String...)}, every node serving RESP too ({@link #resp}). */
    public static LocalCluster startServingResp(final Path dir, final int count, final int replicas,
        final long leaseMs) throws Exception
    {
        return start(dir, count, replicas, leaseMs, TlsSettings.OFF, true, new byte[0]);
    }

    /** As {@link #start(Path, int, int, long, String...)}; the test's own admin calls speak {@code clientTls}. */
    public static LocalCluster start(final Path dir, final int count, final int replicas, final long leaseMs,
        final TlsSettings clientTls, final String... extraSettings) throws Exception
    {
        return start(dir, count, replicas, leaseMs, clientTls, false, new byte[0], extraSettings);
    }

    private static LocalCluster start(final Path dir, final int count, final int replicas, final long leaseMs,
        final TlsSettings clientTls, final boolean resp, final byte[] adminCredential, final String... extraSettings)
        throws Exception
    {
        final LocalCluster cluster = new LocalCluster(leaseMs, clientTls, adminCredential);
        // One call: ports released by one call may come back from the next. After the 3 per node: metrics ports,
        // then RESP ports.
        final int[] ports = FreePorts.take(5 * count);
        final int voters = Math.min(count, 3);
        final StringBuilder voterSpec = new StringBuilder();
        for (int i = 1; i <= voters; i++)
        {
            voterSpec.append(i == 1 ? "" : ",").append(i).append("@127.0.0.1:").append(ports[3 * (i - 1) + 2]);
        }
        try
        {
            for (int i = 1; i <= count; i++)
            {
                final ServerProcess.Builder b = ServerProcess.builder(dir.resolve("node-" + i)).name("node-" + i)
                    .controlPort(ports[3 * (i - 1)]).dataPort(ports[3 * (i - 1) + 1])
                    // Only bounds the wait: four JVMs starting at once on an oversubscribed host take minutes.
                    .readyTimeout(Duration.ofMinutes(6))
                    .setting("node.id", Integer.toString(i)).setting("host", "127.0.0.1")
                    .setting("transport", "tcp").setting("pool.size", "16MiB")
                    .setting("cluster.voters", voterSpec.toString())
                    .setting("cluster.replicas", Integer.toString(replicas))
                    .setting("cluster.initialNodes", Integer.toString(count))
                    .setting("cluster.leaseMs", Long.toString(leaseMs))
                    .setting("metrics.port", Integer.toString(ports[3 * count + i - 1]))
                    // Wall-clock times on every log line (slf4j-simple): failover figures place events by them.
                    .systemProperty("org.slf4j.simpleLogger.showDateTime", "true")
                    .systemProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX")
                    // Ratis at WARN, as the launcher's logback.xml has it: at INFO a voter that becomes leader logs
                    // some 40 configuration keys before it acts (96 ms of a failover measured here, 2026-12-07).
                    .systemProperty("org.slf4j.simpleLogger.log.org.apache.ratis", "warn");
                if (resp)
                {
                    b.setting("resp.port", Integer.toString(ports[4 * count + i - 1]));
                }
                for (int k = 0; k + 1 < extraSettings.length; k += 2)
                {
                    b.setting(extraSettings[k], extraSettings[k + 1]);
                }
                cluster.nodes.add(b.build());
            }
            // Start together: each start-up takes seconds on a busy host.
            final List<Thread> starters = new ArrayList<>();
            final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (final ServerProcess p : cluster.nodes)
            {
                final Thread t = new Thread(() ->
                {
                    try
                    {
                        p.start();
                    }
                    catch (final Throwable ex)
                    {
                        failures.add(ex);
                    }
                });
                t.start();
                starters.add(t);
            }
            for (final Thread t : starters)
            {
                t.join(TimeUnit.MINUTES.toMillis(8));
            }
            if (!failures.isEmpty())
            {
                throw new IllegalStateException("a node did not start", failures.get(0));
            }
            cluster.awaitLayout(Duration.ofMinutes(6));
            return cluster;
        }
        catch (final Exception | Error ex)
        {
            cluster.close();
            throw ex;
        }
    }

    /** Node {@code id}'s metrics endpoint, {@code 127.0.0.1:port} (every node serves one). */
    public String metrics(final int id)
    {
        return node(id).readyFields().get("metrics");
    }

    /** Node {@code id}'s RESP address, {@code 127.0.0.1:port} (started by {@link #startServingResp}). */
    public String resp(final int id)
    {
        return node(id).readyFields().get("resp");
    }

    public ServerProcess node(final int id)
    {
        return nodes.get(id - 1);
    }

    public List<ServerProcess> nodes()
    {
        return nodes;
    }

    public long leaseMs()
    {
        return leaseMs;
    }

    /** Every node's control address, for a client's seeds. */
    public List<String> seeds()
    {
        return nodes.stream().map(ServerProcess::seed).toList();
    }

    /** The status JSON from the first live node that answers (ADMIN "status json"). */
    public String statusJson()
    {
        IllegalStateException last = null;
        try (ControlPlaneClient control = new ControlPlaneClient(clientTls))
        {
            for (final ServerProcess p : nodes)
            {
                if (!p.isAlive())
                {
                    continue;
                }
                try
                {
                    final AdminReply reply = control.admin(HostPort.parse(p.seed()),
                        new Admin(adminCredential, "status json"), Duration.ofSeconds(5));
                    if (reply.ok())
                    {
                        return reply.text();
                    }
                }
                catch (final RuntimeException ex)
                {
                    last = new IllegalStateException(ex.getMessage(), ex);
                }
            }
        }
        throw last != null ? last : new IllegalStateException("no live node answered status");
    }

    /**
     * Runs admin {@code command} (for example {@code move FIRST LAST NODE}) at node {@code node}, within a minute;
     * throws with the node's answer when it refuses.
     */
    public void admin(final int node, final String command)
    {
        try (ControlPlaneClient control = new ControlPlaneClient(clientTls))
        {
            final AdminReply reply = control.admin(HostPort.parse(node(node).seed()),
                new Admin(adminCredential, command), Duration.ofMinutes(1));
            if (!reply.ok())
            {
                throw new IllegalStateException(command + ": " + reply.text());
            }
        }
    }

    /** The ranges of the committed map as {@link #statusJson} reports it. */
    public static List<Range> ranges(final String statusJson)
    {
        final List<Range> ranges = new ArrayList<>();
        for (final JsonNode r : read(statusJson).path("ranges"))
        {
            final List<Integer> backups = new ArrayList<>();
            r.path("backups").forEach(b -> backups.add(b.asInt()));
            ranges.add(new Range(r.path("from").asInt(), r.path("to").asInt(), r.path("epoch").asLong(),
                r.path("primary").asInt(), backups, r.path("state").asText()));
        }
        return ranges;
    }

    /** The coordination group's leader as {@link #statusJson} reports it (-1 when the answering node knows none). */
    public static int leader(final String statusJson)
    {
        final JsonNode leader = read(statusJson).path("leader");
        return leader.isInt() ? leader.asInt() : -1;
    }

    private static JsonNode read(final String statusJson)
    {
        try
        {
            return JSON.readTree(statusJson);
        }
        catch (final java.io.IOException ex)
        {
            throw new IllegalStateException("not a status document: " + statusJson, ex);
        }
    }

    private void awaitLayout(final Duration timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline)
        {
            try
            {
                last = statusJson();
                if (!ranges(last).isEmpty() && leader(last) > 0)
                {
                    return;
                }
            }
            catch (final IllegalStateException ex)
            {
                last = ex.getMessage();
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no slot layout within " + timeout + "; last status: " + last);
    }

    @Override
    public void close()
    {
        for (final ServerProcess p : nodes)
        {
            try
            {
                p.close();
            }
            catch (final RuntimeException ex)
            {
                // Best effort: the others still stop.
            }
        }
    }
}
