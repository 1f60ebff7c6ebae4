package io.rdmakv.it.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.MetricsScrape;
import io.rdmakv.it.support.ProcessJanitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cluster as each node's metrics port shows it, three real nodes with one backup per range: every node is ready,
 * holds its lease and reports the map epoch; the roles the nodes export add up to the map's ranges, one voter says it
 * leads (the one the status names); the primaries show nothing outstanding at their backups once the writes were
 * acknowledged. After a
 * {@code kill -9} of a primary, the survivors count the change of primary and a newer map epoch.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ClusterMetricsTest
{
    private static final long LEASE_MS = 3_000;
    private static final Duration WAIT = Duration.ofMinutes(2);

    @TempDir
    Path dir;

    @Test
    void shouldExportEachNodesPlaceInTheClusterAndCountAFailover() throws Exception
    {
        try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, LEASE_MS);
            KvClient client = KvClient.builder().servers(cluster.seeds()).transport("tcp")
                .requestTimeout(Duration.ofMinutes(1)).build())
        {
            for (int i = 0; i < 30; i++)
            {
                final byte[] key = ("cluster-metrics-" + i).getBytes(StandardCharsets.UTF_8);
                client.put(key, key);
            }
            final String status = cluster.statusJson();
            final List<LocalCluster.Range> ranges = LocalCluster.ranges(status);
            // A steady cluster: one map epoch, every lease held, one leader all voters know. A loaded host can let a
            // lease lapse or hold an election for a moment, so wait for a round of scrapes that shows it.
            final List<MetricsScrape> scrapes = awaitSteady(cluster, List.of(1, 2, 3));
            final int leader = (int)scrapes.get(0).value("rdmakv_ratis_leader_node_id");
            final long epoch = (long)scrapes.get(0).value("rdmakv_cluster_map_epoch");
            double primaries = 0;
            double backups = 0;
            int replicaRows = 0;
            double outstanding = 0;
            for (int id = 1; id <= 3; id++)
            {
                final MetricsScrape scrape = scrapes.get(id - 1);
                for (final String family : MetricsScrape.CLUSTER_ONLY)
                {
                    if (!family.startsWith("rdmakv_replication_")) // rows only once a primary sent a replica writes
                    {
                        assertTrue(scrape.has(family), "node " + id + " exports " + family);
                    }
                }
                assertTrue(scrape.value("rdmakv_cluster_lease_remaining_seconds") > 0, "node " + id);
                assertEquals(0, scrape.value("rdmakv_cluster_ranges_fenced"));
                assertTrue(scrape.value("rdmakv_ratis_term") >= 1, "node " + id);
                assertEquals(id == leader ? 1 : 0, scrape.value("rdmakv_ratis_leader"), "node " + id);
                primaries += scrape.value("rdmakv_cluster_ranges", "role", "primary");
                backups += scrape.value("rdmakv_cluster_ranges", "role", "backup");
                if (scrape.has("rdmakv_replication_outstanding_writes"))
                {
                    replicaRows += scrape.families().get("rdmakv_replication_outstanding_writes").getMetricCount();
                    outstanding += scrape.value("rdmakv_replication_outstanding_writes");
                }
                final HttpResponse<byte[]> ready = awaitReady(cluster.metrics(id));
                assertEquals(200, ready.statusCode(), new String(ready.body(), StandardCharsets.UTF_8));
            }
            assertEquals(ranges.size(), primaries, "every range has one primary: " + status);
            assertEquals(ranges.stream().mapToInt(r -> r.backups().size()).sum(), backups, status);
            assertTrue(replicaRows >= 1, "the primaries of the 30 writes export their backups' lag");
            assertEquals(0, outstanding, "every acknowledged write was answered by its backup");

            final LocalCluster.Range victimRange = ranges.stream().filter(r -> r.primary() != leader).findFirst()
                .orElseThrow();
            final int victim = victimRange.primary();
            final List<Integer> survivors = List.of(1, 2, 3).stream().filter(id -> id != victim).toList();
            final double changesBefore = MetricsScrape.of(cluster.metrics(leader))
                .value("rdmakv_cluster_primary_changes");
            cluster.node(victim).kill();
            final long after = awaitNewerEpoch(cluster, survivors, epoch, victim);
            for (final int id : survivors)
            {
                final MetricsScrape scrape = MetricsScrape.of(cluster.metrics(id));
                assertTrue(scrape.value("rdmakv_cluster_map_epoch") >= after);
                assertTrue(scrape.value("rdmakv_cluster_failed_nodes") >= 1, "node " + id);
            }
            assertTrue(MetricsScrape.of(cluster.metrics(leader)).value("rdmakv_cluster_primary_changes") >
                changesBefore, "the leader counted the failover of node " + victim + "'s ranges");
        }
    }

    /**
     * Scrape every node in {@code ids} until one round shows the same map epoch everywhere, every lease held and one
     * leader (a voter that says it leads, whom every node names); returns that round, in {@code ids}' order.
     */
    private static List<MetricsScrape> awaitSteady(final LocalCluster cluster, final List<Integer> ids)
        throws Exception
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (true)
        {
            final List<MetricsScrape> round = ids.stream().map(id -> MetricsScrape.of(cluster.metrics(id))).toList();
            final long epochs = round.stream().map(s -> s.value("rdmakv_cluster_map_epoch")).distinct().count();
            final long leaderIds = round.stream().map(s -> s.value("rdmakv_ratis_leader_node_id")).distinct().count();
            final boolean leases = round.stream().allMatch(s -> s.value("rdmakv_cluster_lease_held") == 1);
            final double leaders = round.stream().mapToDouble(s -> s.value("rdmakv_ratis_leader")).sum();
            if (epochs == 1 && leaderIds == 1 && leases && leaders == 1)
            {
                return round;
            }
            assertTrue(System.nanoTime() < deadline, "never steady: epochs " + epochs + ", leader ids " + leaderIds +
                ", leases all held " + leases + ", leaders " + leaders);
            Thread.sleep(100);
        }
    }

    /** {@code /health/ready} of the node at {@code hostPort}, asked until 200 (a lease may lapse for a moment). */
    private static HttpResponse<byte[]> awaitReady(final String hostPort) throws Exception
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        HttpResponse<byte[]> ready = MetricsScrape.get("http://" + hostPort + "/health/ready", null);
        while (ready.statusCode() != 200 && System.nanoTime() < deadline)
        {
            Thread.sleep(100);
            ready = MetricsScrape.get("http://" + hostPort + "/health/ready", null);
        }
        return ready;
    }

    /** Wait until every node in {@code ids} exports the same map epoch; returns it. */
    private static long awaitSameEpoch(final LocalCluster cluster, final List<Integer> ids) throws Exception
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (true)
        {
            final List<Double> epochs = ids.stream()
                .map(id -> MetricsScrape.of(cluster.metrics(id)).value("rdmakv_cluster_map_epoch")).toList();
            if (epochs.stream().distinct().count() == 1)
            {
                return epochs.get(0).longValue();
            }
            assertTrue(System.nanoTime() < deadline, "map epochs never agreed: " + epochs);
            Thread.sleep(100);
        }
    }

    /** Wait until the survivors' map no longer makes {@code victim} primary of anything; returns its epoch. */
    private static long awaitNewerEpoch(final LocalCluster cluster, final List<Integer> survivors, final long epoch,
        final int victim) throws Exception
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (true)
        {
            final String status = cluster.statusJson();
            if (LocalCluster.ranges(status).stream().noneMatch(r -> r.primary() == victim))
            {
                final long newest = awaitSameEpoch(cluster, survivors);
                assertTrue(newest > epoch, "epoch " + newest + " after " + epoch);
                return newest;
            }
            assertTrue(System.nanoTime() < deadline, "node " + victim + " is still a primary: " + status);
            Thread.sleep(100);
        }
    }
}
