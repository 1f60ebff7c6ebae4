package io.rdmakv.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdmakv cluster local --metrics-base-port P}: node i serves its metrics and health checks on P + i - 1; the
 * command names the targets, each node's line names its endpoint, and every node's {@code /health/ready} turns 200
 * once the cluster is laid out (with {@code --json}, the READY event lists the targets), with its build in {@code rdmakv_build_info} and its log lines by level.
 */
@Timeout(600)
class ClusterLocalMetricsTest
{
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path tmp;

    @Test
    void shouldGiveEveryLocalNodeAMetricsPort() throws Exception
    {
        final int base = LocalClusters.freeBasePort(3);
        final int metrics = LocalClusters.freeBesideNodeOne(base);
        final String[] ready = new String[1];
        try (ChildJvm local = ChildJvm.startUntil(tmp, "READY cluster", ready, RdmakvMain.class.getName(), "cluster",
            "local", "--nodes", "3", "--replicas", "1", "--base-port", Integer.toString(base),
            "--metrics-base-port", Integer.toString(metrics), "--data-dir", tmp.resolve("cluster").toString(),
            "-S", "pool.size=16MiB"))
        {
            final String lines = String.join("\n", local.linesRead());
            assertTrue(lines.contains("metrics: Prometheus targets 127.0.0.1:" + metrics + "..127.0.0.1:" +
                (metrics + 2)), lines);
            for (int i = 1; i <= 3; i++)
            {
                final int port = metrics + i - 1;
                assertTrue(lines.contains("metrics=127.0.0.1:" + port), "node " + i + "'s line: " + lines);
                final HttpResponse<String> readiness = awaitReady("http://127.0.0.1:" + port + "/health/ready");
                assertEquals(200, readiness.statusCode(), "node " + i + ": " + readiness.body());
                final String scrape = get("http://127.0.0.1:" + port + "/metrics").body();
                assertTrue(scrape.contains("rdmakv_build_info{"), scrape);
                // The launcher logs through logback: the node's log lines by level (each node logged its start).
                assertTrue(scrape.matches("(?s).*\\nlogback_events_total\\{level=\"info\"} [1-9].*"), scrape);
            }
        }
    }

    @Test
    void shouldListTheMetricsTargetsInTheJsonReadyEvent() throws Exception
    {
        final int base = LocalClusters.freeBasePort(3);
        final int metrics = LocalClusters.freeBesideNodeOne(base);
        final String[] ready = new String[1];
        try (ChildJvm local = ChildJvm.startUntil(tmp, "{\"event\":\"READY\"", ready, RdmakvMain.class.getName(),
            "cluster", "local", "--json", "--nodes", "3", "--replicas", "1", "--base-port", Integer.toString(base),
            "--metrics-base-port", Integer.toString(metrics), "--data-dir", tmp.resolve("cluster").toString(),
            "-S", "pool.size=16MiB"))
        {
            final ObjectMapper json = new ObjectMapper();
            final List<String> targets = new ArrayList<>();
            json.readTree(ready[0]).get("metrics").forEach(t -> targets.add(t.asText()));
            assertEquals(List.of("127.0.0.1:" + metrics, "127.0.0.1:" + (metrics + 1), "127.0.0.1:" + (metrics + 2)),
                targets);
            int nodes = 0;
            for (final String line : local.linesRead())
            {
                final JsonNode event = line.startsWith("{") ? json.readTree(line) : null;
                if (event != null && event.path("event").asText().equals("NODE"))
                {
                    assertEquals(targets.get(event.get("id").asInt() - 1), event.path("ready").path("metrics").asText(),
                        line);
                    nodes++;
                }
            }
            assertEquals(3, nodes, "a NODE event per node: " + local.linesRead());
            assertFalse(local.linesRead().stream().anyMatch(l -> l.startsWith("metrics:")), "only JSON on stdout");
        }
    }

    /** Ready is the node's own view of the map: poll until it answers 200 (bounded), return the last answer. */
    private static HttpResponse<String> awaitReady(final String url) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        HttpResponse<String> last = get(url);
        while (last.statusCode() != 200 && System.nanoTime() < deadline)
        {
            Thread.sleep(100);
            last = get(url);
        }
        return last;
    }

    private static HttpResponse<String> get(final String url) throws Exception
    {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
    }
}
