package io.rdmakv.server.metrics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.cluster.StaticClusterView;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code /health/ready} answers 503 with the reason until the node serves, 200 once it does, and 503 again while a
 * range it holds is fenced; {@code /health/live} is 200 throughout. (A real node's answers: MetricsPracticesTest.)
 */
class HealthEndpointTest
{
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void shouldAnswerReadyOnlyWhileTheNodeServesItsRanges() throws Exception
    {
        final AtomicBoolean serving = new AtomicBoolean();
        final ClusterMember self = new ClusterMember(1, "127.0.0.1", 7400, 7401);
        final StaticClusterView[] view = {StaticClusterView.singleNode(self)};
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(new InetSocketAddress("127.0.0.1", 0), registry,
            () -> { }, new NodeReadiness(serving::get, () -> view[0])))
        {
            final String base = "http://127.0.0.1:" + endpoint.address().getPort();
            assertAnswer(503, "{\"status\":\"not_ready\",\"reason\":\"not serving: starting or closing\"}",
                get(base + "/health/ready"));
            assertAnswer(200, "{\"status\":\"live\"}", get(base + "/health/live"));

            serving.set(true);
            assertAnswer(200, "{\"status\":\"ready\",\"ranges\":1}", get(base + "/health/ready"));

            view[0] = new StaticClusterView(1, new ClusterState(2, List.of(self),
                List.of(new SlotRange(0, ClusterState.HASH_SLOT_COUNT - 1, 2, 1, List.of(), List.of(),
                    SlotRange.State.FENCED))));
            assertAnswer(503, "{\"status\":\"not_ready\",\"reason\":\"range 0-16383 is fenced\"}",
                get(base + "/health/ready"));
            assertEquals(405, HTTP.send(HttpRequest.newBuilder(URI.create(base + "/health/live"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        }
        finally
        {
            registry.close();
        }
    }

    private static HttpResponse<String> get(final String url) throws Exception
    {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertAnswer(final int status, final String body, final HttpResponse<String> response)
    {
        assertEquals(status, response.statusCode(), response.body());
        assertEquals(body, response.body().trim());
        assertEquals("application/json; charset=utf-8", response.headers().firstValue("Content-Type").orElse(""));
    }
}
