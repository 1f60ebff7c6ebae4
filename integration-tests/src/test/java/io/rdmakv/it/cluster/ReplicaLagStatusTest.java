package io.rdmakv.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.client.HostPort;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.it.fleet.ServerLog;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.faults.ProcessFaults;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.wire.Admin;
import io.rdmakv.protocol.wire.AdminReply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replica lag as {@code rdmakv cluster status} gathers it: a range's primary answers {@code lag} with the writes it
 * sent each backup, how many were answered and how many are outstanding. Every acknowledged write was answered by the
 * backup (outstanding 0 afterwards); with the backup stopped (SIGSTOP), the primary shows the write outstanding until
 * the backup runs again. A long lease and replication timeout keep the stopped backup in sync meanwhile.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ReplicaLagStatusTest
{
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofMinutes(2);

    @TempDir
    Path dir;

    @Test
    void shouldShowEachBackupsOutstandingWritesOnItsPrimary() throws Exception
    {
        try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, 30_000, "replication.timeoutMs", "120000");
             KvClient client = KvClient.builder().servers(cluster.seeds()).transport("tcp")
                 .requestTimeout(Duration.ofMinutes(2)).connectTimeout(Duration.ofSeconds(5)).build())
        {
            final String status = cluster.statusJson();
            final int leader = LocalCluster.leader(status);
            // A range whose backup is not the coordination leader: stopping the backup stops no decision.
            final LocalCluster.Range range = LocalCluster.ranges(status).stream()
                .filter(r -> r.backups().size() == 1 && r.backups().get(0) != leader).findFirst().orElseThrow();
            final int primary = range.primary();
            final int backup = range.backups().get(0);
            final List<byte[]> keys = keysIn(range, 51);

            final JsonNode before = replica(lag(cluster, primary), backup);
            final long sentBefore = before == null ? 0 : before.path("sent").asLong();
            for (int i = 0; i < 50; i++)
            {
                client.put(keys.get(i), ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            final JsonNode after = replica(lag(cluster, primary), backup);
            assertEquals(sentBefore + 50, after.path("sent").asLong(), "every write went to the backup: " + after);
            assertEquals(0, after.path("outstanding").asLong(), "every acknowledged write was answered: " + after);
            final String named = "{\"from\":" + range.first() + ",\"to\":" + range.last() + ",\"role\":\"BACKUP\"}";
            assertTrue(after.path("ranges").toString().contains(named), "the row names the range: " + after);
            // Every node serves shm beside tcp by default, yet replication stays on the main transport: a link
            // offers only it in its HELLO.
            cluster.nodes().forEach(n -> assertEquals("tcp,shm", n.readyFields().get("serves"), n.readyFields()
                .toString()));
            ServerLog.awaitLine(cluster.node(primary), WAIT, "replication link to node " + backup + " at ",
                "ready over tcp (the node's main transport)");

            final CompletableFuture<Void> pending;
            try (ProcessFaults.Paused paused = ProcessFaults.pause(cluster.node(backup).pid()))
            {
                pending = client.putAsync(keys.get(50), "held".getBytes(StandardCharsets.UTF_8));
                final JsonNode lagging = awaitReplica(cluster, primary, backup,
                    r -> r.path("outstanding").asLong() >= 1, "the write outstanding while the backup is stopped");
                assertFalse(pending.isDone(), "not acknowledged before the backup has it: " + lagging);
            }
            pending.get(2, TimeUnit.MINUTES);
            final JsonNode caughtUp = replica(lag(cluster, primary), backup);
            assertEquals(0, caughtUp.path("outstanding").asLong(), "answered once it runs again: " + caughtUp);
            assertEquals(sentBefore + 51, caughtUp.path("acked").asLong(), caughtUp.toString());
        }
    }

    private static List<byte[]> keysIn(final LocalCluster.Range range, final int count)
    {
        final List<byte[]> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++)
        {
            final byte[] k = ("lag-" + i).getBytes(StandardCharsets.UTF_8);
            if (range.contains(KeyHash.hashSlot(k)))
            {
                keys.add(k);
            }
        }
        return keys;
    }

    private static JsonNode awaitReplica(final LocalCluster cluster, final int primary, final int backup,
        final Predicate<JsonNode> condition, final String what) throws Exception
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        JsonNode last = null;
        while (System.nanoTime() - deadline < 0)
        {
            last = replica(lag(cluster, primary), backup);
            if (last != null && condition.test(last))
            {
                return last;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        throw new AssertionError("never saw " + what + "; last: " + last);
    }

    private static JsonNode replica(final JsonNode lag, final int nodeId)
    {
        for (final JsonNode r : lag.path("replicas"))
        {
            if (r.path("node").asInt() == nodeId)
            {
                return r;
            }
        }
        return null;
    }

    private static JsonNode lag(final LocalCluster cluster, final int nodeId) throws Exception
    {
        try (ControlPlaneClient control = new ControlPlaneClient())
        {
            final AdminReply reply = control.admin(HostPort.parse(cluster.node(nodeId).seed()),
                new Admin(new byte[0], "lag"), Duration.ofSeconds(10));
            assertTrue(reply.ok(), reply.text());
            final JsonNode lag = JSON.readTree(reply.text());
            assertEquals(nodeId, lag.path("node").asInt(), reply.text());
            return lag;
        }
    }
}
