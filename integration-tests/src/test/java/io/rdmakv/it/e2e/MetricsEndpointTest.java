package io.rdmakv.it.e2e;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvException;
import io.rdmakv.client.metrics.KvClientMetrics;
import io.rdmakv.it.support.FreePorts;
import io.rdmakv.it.support.MetricsScrape;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The metrics endpoint of a real server process ({@code metrics.port}): scraped before and after a known number of
 * operations, parsed by the exposition library, every counter that should move moves by exactly what was done.
 */
@ExtendWith(ProcessJanitor.class)
class MetricsEndpointTest
{
    private static final int PUTS = 50;
    private static final int RPC_GETS = 30;
    private static final int ONE_SIDED_GETS = 20;
    private static final int DELETES = 5;
    private static final Path REPO_ROOT =
        Path.of(System.getProperty("rdmakv.it.repoRoot", "..")).toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    @Test
    @Timeout(180)
    void shouldMoveEveryCounterByWhatWasDone() throws Exception
    {
        final int port = FreePorts.take(1)[0];
        final ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("metrics")
            .setting("metrics.port", Integer.toString(port)).setting("auth.secret", "s3cret").start();
        final String metrics = "127.0.0.1:" + port;
        assertEquals(metrics, server.readyFields().get("metrics"), "READY names the metrics endpoint");

        final HttpResponse<byte[]> text = MetricsScrape.get("http://" + metrics + "/metrics", null);
        assertEquals(200, text.statusCode());
        assertTrue(text.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
        final String body = new String(text.body(), StandardCharsets.UTF_8);
        assertTrue(body.contains("# TYPE rdmakv_server_puts_total counter"), body);
        assertEquals(404, MetricsScrape.get("http://" + metrics + "/other", null).statusCode());

        final MetricsScrape before = MetricsScrape.of(metrics);
        final SimpleMeterRegistry clientRegistry = new SimpleMeterRegistry();
        try (KvClient rpc = client(server, GetMode.RPC, "s3cret");
            KvClient oneSided = client(server, GetMode.ONE_SIDED, "s3cret"))
        {
            new KvClientMetrics(oneSided).bindTo(clientRegistry);
            for (int i = 0; i < PUTS; i++)
            {
                rpc.put(key(i), ("value-" + i).getBytes(StandardCharsets.UTF_8));
            }
            for (int i = 0; i < RPC_GETS; i++)
            {
                assertTrue(rpc.get(key(i)) != null);
            }
            for (int i = 0; i < ONE_SIDED_GETS; i++)
            {
                assertTrue(oneSided.get(key(i)) != null);
            }
            for (int i = 0; i < DELETES; i++)
            {
                assertTrue(rpc.delete(key(i)));
            }
        }
        assertThrows(KvException.class, () -> client(server, GetMode.RPC, "wrong").close());
        final MetricsScrape after = MetricsScrape.of(metrics);

        final double fallbacks = clientRegistry.get("rdmakv.client.get.one_sided.fallbacks").functionCounter().count();
        assertEquals(ONE_SIDED_GETS, clientRegistry.get("rdmakv.client.get.one_sided.hits").functionCounter().count() +
            fallbacks, "each one-sided GET is a hit or fell back to RPC");
        assertEquals(PUTS, delta(before, after, "rdmakv_server_puts"));
        assertEquals(PUTS, delta(before, after, "rdmakv_server_request_seconds", "op", "put"));
        assertEquals(RPC_GETS + fallbacks, delta(before, after, "rdmakv_server_gets_rpc"), "one-sided GETs bypass the node");
        assertEquals(RPC_GETS + fallbacks, delta(before, after, "rdmakv_server_request_seconds", "op", "get"));
        assertEquals(DELETES, delta(before, after, "rdmakv_server_deletes"));
        assertEquals(DELETES, delta(before, after, "rdmakv_server_request_seconds", "op", "delete"));
        assertEquals(PUTS - DELETES, after.value("rdmakv_server_pool_keys"));
        assertEquals(1, delta(before, after, "rdmakv_server_rejects", "cause", "handshake"), "the wrong credential");
        assertEquals(0, delta(before, after, "rdmakv_server_rejects", "cause", "over_limit"));
        assertTrue(delta(before, after, "rdmakv_server_connections_data_accepted") >= 2);
        assertTrue(after.value("rdmakv_server_pool_used_bytes") > before.value("rdmakv_server_pool_used_bytes"));
        assertEquals(1, after.value("rdmakv_server_memory_registrations"), "the pool, registered once");
        assertEquals(0, after.value("rdmakv_rocksdb_write_stopped"));
        assertTrue(after.value("rdmakv_rocksdb_memtables_bytes") > 0);
        assertTrue(after.value("jvm_buffer_memory_used_bytes", "id", "direct") > 0);
        assertTrue(after.value("process_uptime_seconds") > 0);
        assertEquals(0, server.stop(java.time.Duration.ofSeconds(60)), server.diagnosis());
    }

    @Test
    @Timeout(180)
    void shouldServeEverySeriesTheGrafanaDashboardAndTheAlertRulesQuery() throws Exception
    {
        // A described RDMA port, so the port-counter panels have their series on a host without RDMA.
        final Path port = tmp.resolve("sysfs/rxe0/ports/1");
        Files.createDirectories(port.resolve("counters"));
        Files.createDirectories(port.resolve("hw_counters"));
        Files.writeString(port.resolve("state"), "4: ACTIVE\n");
        Files.writeString(port.resolve("counters/symbol_error"), "2\n");
        Files.writeString(port.resolve("hw_counters/rnr_nak_retry_err"), "5\n");
        final int metricsPort = FreePorts.take(1)[0];
        final ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("dashboard")
            .setting("metrics.port", Integer.toString(metricsPort))
            .systemProperty("rdmakv.metrics.sysfsRoot", tmp.resolve("sysfs").toString()).start();
        final PrometheusMeterRegistry service = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        final MetricsScrape scrape;
        try (KvClient client = client(server, GetMode.AUTO, ""))
        {
            new KvClientMetrics(client).bindTo(service);
            final ByteArrayOutputStream clientScrape = new ByteArrayOutputStream();
            service.scrape(clientScrape, MetricsScrape.PROTOBUF);
            scrape = MetricsScrape.of("127.0.0.1:" + metricsPort).and(MetricsScrape.parse(clientScrape.toByteArray()));
        }
        assertEquals(5, scrape.value("rdmakv_rdma_port_counter", "device", "rxe0", "counter", "rnr_nak_retry_err"));

        final JsonNode dashboard = new ObjectMapper().readTree(REPO_ROOT.resolve("docker/grafana/rdmakv-dashboard.json")
            .toFile());
        assertEquals("rdmakv", dashboard.get("uid").asText());
        final Set<String> queried = new TreeSet<>();
        for (final JsonNode panel : dashboard.get("panels"))
        {
            assertTrue(panel.get("targets").size() > 0, panel.get("title").asText());
            for (final JsonNode target : panel.get("targets"))
            {
                queried.addAll(seriesIn(target.get("expr").asText()));
            }
        }
        assertTrue(queried.size() >= 30, "the dashboard queries the node, client, RocksDB, RDMA and JVM: " + queried);
        // A single node has no lease, Raft group or replicas: ClusterMetricsTest finds those in a cluster's scrapes.
        final List<String> missing = queried.stream()
            .filter(series -> !scrape.hasSeries(series) && !MetricsScrape.CLUSTER_ONLY.contains(series)).toList();
        assertEquals(List.of(), missing, "series the dashboard queries but no scrape has; scraped: " +
            scrape.families().keySet());

        // The alert rules (docker/rdmakv-alerts.yml): one "expr:" line per rule, each series in a node's scrape.
        final List<String> rules = Files.readAllLines(REPO_ROOT.resolve("docker/rdmakv-alerts.yml"));
        final Set<String> alerted = new TreeSet<>();
        final Set<String> alerts = new TreeSet<>();
        for (final String line : rules)
        {
            final Matcher expr = Pattern.compile("^\\s+expr: (.+)$").matcher(line);
            if (expr.matches())
            {
                alerted.addAll(seriesIn(expr.group(1)));
            }
            final Matcher alert = Pattern.compile("^\\s+- alert: (\\w+)$").matcher(line);
            if (alert.matches())
            {
                alerts.add(alert.group(1));
            }
        }
        assertTrue(alerts.containsAll(Set.of("RdmakvNodeDown", "RdmakvLeaseLost", "RdmakvReplicaLagging",
            "RdmakvRangeFencedTooLong", "RdmakvDiskNearlyFull")), alerts.toString());
        assertEquals(List.of(), alerted.stream()
            .filter(series -> !scrape.hasSeries(series) && !MetricsScrape.CLUSTER_ONLY.contains(series)).toList(),
            "series the alert rules query but no scrape has");
        assertEquals(0, server.stop(java.time.Duration.ofSeconds(60)), server.diagnosis());
    }

    /** The series names in a PromQL expression: identifiers outside braces that are not functions or keywords. */
    static Set<String> seriesIn(final String expr)
    {
        final String outsideBraces = expr.replaceAll("\\{[^}]*}", "").replaceAll("\\[[^]]*]", "");
        final Set<String> series = new TreeSet<>();
        final Matcher m = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*(?!\\s*\\()").matcher(outsideBraces);
        while (m.find())
        {
            final String word = m.group();
            if (word.startsWith("rdmakv_") || word.startsWith("jvm_") || word.startsWith("process_"))
            {
                series.add(word);
            }
        }
        return series;
    }

    private static double delta(final MetricsScrape before, final MetricsScrape after, final String name,
        final String... labels)
    {
        return after.value(name, labels) - before.value(name, labels);
    }

    private static KvClient client(final ServerProcess server, final GetMode mode, final String credential)
    {
        return KvClient.builder().server(server.seed()).transport(TestTransport.name()).getMode(mode)
            .secret(credential).connectTimeout(TestTransport.CONNECT_TIMEOUT).build();
    }

    private static byte[] key(final int i)
    {
        return ("metrics-" + i).getBytes(StandardCharsets.UTF_8);
    }
}
