package io.rdmakv.server.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code GET /metrics} on the JDK's own HTTP server, one daemon thread: the registry's scrape in the format the
 * scraper asks for by {@code Accept} (Prometheus text 0.0.4 by default, OpenMetrics, or Prometheus protobuf), as
 * Micrometer's documentation serves it. Anything else is 404; only GET and HEAD are answered.
 */
public final class MetricsEndpoint implements AutoCloseable
{
    public static final String PATH = "/metrics";

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsEndpoint(final HttpServer server, final ExecutorService executor)
    {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Bind and serve.
     *
     * @throws UncheckedIOException when the port cannot be bound (the message names it).
     */
    public static MetricsEndpoint start(final InetSocketAddress bind, final PrometheusMeterRegistry registry)
    {
        final HttpServer server;
        try
        {
            server = HttpServer.create(bind, 16);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot bind the metrics endpoint to " + bind + ": " + ex.getMessage(), ex);
        }
        final ExecutorService executor = Executors.newSingleThreadExecutor(r ->
        {
            final Thread t = new Thread(r, "rdmakv-metrics");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", exchange -> handle(exchange, registry));
        server.start();
        return new MetricsEndpoint(server, executor);
    }

    public InetSocketAddress address()
    {
        return server.getAddress();
    }

    private static void handle(final HttpExchange exchange, final PrometheusMeterRegistry registry) throws IOException
    {
        try (exchange)
        {
            final String method = exchange.getRequestMethod();
            if (!exchange.getRequestURI().getPath().equals(PATH))
            {
                reply(exchange, 404, "text/plain; charset=utf-8", "not found: the metrics are at " + PATH + "\n");
                return;
            }
            if (!method.equals("GET") && !method.equals("HEAD"))
            {
                reply(exchange, 405, "text/plain; charset=utf-8", "GET or HEAD only\n");
                return;
            }
            final String accept = exchange.getRequestHeaders().getFirst("Accept");
            final java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream(64 * 1024);
            final String contentType = accept == null ? "text/plain; version=0.0.4; charset=utf-8" : accept;
            registry.scrape(body, contentType);
            exchange.getResponseHeaders().set("Content-Type", negotiated(accept));
            final byte[] bytes = body.toByteArray();
            exchange.sendResponseHeaders(200, method.equals("HEAD") ? -1 : bytes.length);
            if (!method.equals("HEAD"))
            {
                try (OutputStream out = exchange.getResponseBody())
                {
                    out.write(bytes);
                }
            }
        }
    }

    /** The content type the registry wrote for {@code accept} (its writers choose the same way). */
    private static String negotiated(final String accept)
    {
        if (accept != null && accept.contains("application/vnd.google.protobuf") &&
            accept.contains("io.prometheus.client.MetricFamily"))
        {
            return "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";
        }
        if (accept != null && accept.contains("application/openmetrics-text"))
        {
            return "application/openmetrics-text; version=1.0.0; charset=utf-8";
        }
        return "text/plain; version=0.0.4; charset=utf-8";
    }

    private static void reply(final HttpExchange exchange, final int status, final String type, final String text)
        throws IOException
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody())
        {
            out.write(bytes);
        }
    }

    @Override
    public void close()
    {
        server.stop(0);
        executor.shutdownNow();
    }
}
