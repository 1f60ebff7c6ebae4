package io.rdmakv.it.metrics;

import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.DataPortWire;
import io.rdmakv.it.support.FreePorts;
import io.rdmakv.it.support.MetricsScrape;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.RawConnection;
import io.rdmakv.it.support.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real node's metrics port against the Prometheus naming practices (every family has HELP, snake_case, base
 * units, {@code _total} on counters and only there), its build info, the few request-time buckets, its health
 * endpoints, and the malformed-request counter moving when the data port refuses a frame.
 */
@ExtendWith(ProcessJanitor.class)
class MetricsPracticesTest
{
    @TempDir
    Path tmp;

    @Test
    @Timeout(180)
    void shouldExposeOnlyFamiliesThatFollowTheNamingPracticesAndServeHealth() throws Exception
    {
        try (ServerProcess server = node("practices"))
        {
            final String base = "http://" + server.readyFields().get("metrics");
            try (KvClient client = KvClient.builder().server(server.seed()).transport("tcp").build())
            {
                client.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
                client.get("k".getBytes(StandardCharsets.UTF_8));
            }
            final Exposition scrape = Exposition.parse(text(MetricsScrape.get(base + "/metrics", null)));
            assertEquals(List.of(), scrape.violations(), "families that break the naming practices");
            assertTrue(scrape.families().size() >= 60, "the node's families: " + scrape.families().keySet());

            assertEquals(1, scrape.value("rdmakv_build_info", "version=\"", "revision=\"",
                "java=\"" + System.getProperty("java.runtime.version")));
            // Few, explicit buckets: 10 bounds and +Inf for each of the 4 operations (396 before).
            assertEquals(44, scrape.samplesNamed("rdmakv_server_request_seconds_bucket"));
            assertEquals(1, scrape.value("rdmakv_server_request_seconds", "_bucket{", "op=\"put\"",
                "le=\"+Inf\""));
            assertEquals(1, scrape.value("rdmakv_server_puts_total"));
            assertEquals(1, scrape.value("rdmakv_cluster_ranges", "role=\"primary\""), "a single node's one range");
            final double available = scrape.value("rdmakv_store_disk_available_bytes");
            assertTrue(available > 0 && available <= scrape.value("rdmakv_store_disk_size_bytes"), "disk space");
            assertEquals(1, scrape.value("rdmakv_cluster_range_role", "range=\"0-16383\"", "role=\"primary\"",
                "state=\"live\""));

            final HttpResponse<byte[]> live = MetricsScrape.get(base + "/health/live", null);
            assertEquals(200, live.statusCode());
            assertEquals("{\"status\":\"live\"}", text(live).trim());
            final HttpResponse<byte[]> ready = MetricsScrape.get(base + "/health/ready", null);
            assertEquals(200, ready.statusCode(), text(ready));
            assertEquals("{\"status\":\"ready\",\"ranges\":1}", text(ready).trim());
            assertTrue(ready.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
            assertEquals(404, MetricsScrape.get(base + "/health", null).statusCode());
        }
    }

    @Test
    @Timeout(180)
    void shouldCountAFrameTheDataPortRefusesAsMalformed() throws Exception
    {
        try (ServerProcess server = node("malformed"))
        {
            final String metrics = server.readyFields().get("metrics");
            final double before = MetricsScrape.of(metrics).value("rdmakv_server_requests_malformed");
            try (RawConnection raw = RawConnection.open(server.dataAddress()))
            {
                raw.send(DataPortWire.frame((byte)42, new byte[] {1, 2, 3}));
                assertEquals(RawConnection.Outcome.CLOSED, raw.awaitClose(Duration.ofSeconds(30)),
                    "the node closes a connection that sent a frame of an unknown type");
            }
            // The close is counted on the request thread once the transport reports it: wait for the count to move.
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            double after = before;
            while (after == before && System.nanoTime() < deadline)
            {
                after = MetricsScrape.of(metrics).value("rdmakv_server_requests_malformed");
            }
            assertEquals(before + 1, after, "one refused frame, one malformed request");
            assertEquals(after, MetricsScrape.of(metrics).value("rdmakv_server_rejects", "cause", "malformed"));
            assertTrue((Files.readString(server.stderrLog()) + Files.readString(server.stdoutLog()))
                .contains("protocol error from"),
                "the data port logged the protocol error: " + server.diagnosis());
            assertTrue(server.isAlive(), server.diagnosis());
        }
    }

    /** A node on tcp with a metrics port, started. */
    private ServerProcess node(final String name)
    {
        return ServerProcess.builder(tmp.resolve("data")).name(name).setting("transport", "tcp")
            .setting("metrics.port", Integer.toString(FreePorts.take(1)[0])).start();
    }

    private static String text(final HttpResponse<byte[]> response)
    {
        return new String(response.body(), StandardCharsets.UTF_8);
    }
}
