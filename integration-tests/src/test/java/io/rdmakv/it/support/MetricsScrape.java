package io.rdmakv.it.support;

import io.prometheus.metrics.expositionformats.generated.Metrics;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One scrape of a node's {@code /metrics}, asked for in the Prometheus protobuf exposition and parsed by the
 * exposition library's own generated classes ({@code prometheus-metrics-exposition-formats}), so a test reads the
 * same families and samples a Prometheus server would store: by family name and label values.
 */
public final class MetricsScrape
{
    /** Families only a node of a Ratis cluster exports (lease, Raft group, replication to its replicas). */
    public static final java.util.Set<String> CLUSTER_ONLY = java.util.Set.of("rdmakv_cluster_lease_held",
        "rdmakv_cluster_lease_remaining_seconds", "rdmakv_cluster_failed_nodes", "rdmakv_ratis_leader",
        "rdmakv_ratis_leader_node_id", "rdmakv_ratis_term", "rdmakv_replication_outstanding_writes",
        "rdmakv_replication_last_ack_age_seconds");

    public static final String PROTOBUF =
        "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

    private final Map<String, Metrics.MetricFamily> families;

    private MetricsScrape(final Map<String, Metrics.MetricFamily> families)
    {
        this.families = families;
    }

    /** GET {@code url} with {@code accept}; the response (status checked by the caller). */
    public static HttpResponse<byte[]> get(final String url, final String accept)
    {
        final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
        if (accept != null)
        {
            request.header("Accept", accept);
        }
        try
        {
            return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot scrape " + url, ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted scraping " + url, ex);
        }
    }

    /** Scrape and parse {@code http://host:port/metrics}. */
    public static MetricsScrape of(final String hostPort)
    {
        final HttpResponse<byte[]> response = get("http://" + hostPort + "/metrics", PROTOBUF);
        if (response.statusCode() != 200)
        {
            throw new IllegalStateException("scrape of " + hostPort + " answered " + response.statusCode());
        }
        return parse(response.body());
    }

    /** Parse a scrape in the delimited protobuf exposition (e.g. a registry's {@code scrape(out, PROTOBUF)}). */
    public static MetricsScrape parse(final byte[] protobuf)
    {
        final Map<String, Metrics.MetricFamily> families = new LinkedHashMap<>();
        try (InputStream in = new ByteArrayInputStream(protobuf))
        {
            Metrics.MetricFamily family;
            while ((family = Metrics.MetricFamily.parseDelimitedFrom(in)) != null)
            {
                families.put(family.getName(), family);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("unparsable scrape", ex);
        }
        return new MetricsScrape(families);
    }

    /** This scrape's families and {@code other}'s (e.g. a node's and an embedding service's). */
    public MetricsScrape and(final MetricsScrape other)
    {
        final Map<String, Metrics.MetricFamily> all = new LinkedHashMap<>(families);
        all.putAll(other.families);
        return new MetricsScrape(all);
    }

    /**
     * Whether a PromQL series name exists here: a family of that name, a counter's {@code _total}, or a histogram's
     * {@code _bucket} / {@code _count} / {@code _sum}.
     */
    public boolean hasSeries(final String series)
    {
        if (has(series) || has(series.replaceFirst("_total$", "")))
        {
            return true;
        }
        final String base = series.replaceFirst("_(bucket|count|sum)$", "");
        final Metrics.MetricFamily f = families.get(base);
        return !base.equals(series) && f != null &&
            (f.getType() == Metrics.MetricType.HISTOGRAM || f.getType() == Metrics.MetricType.SUMMARY);
    }

    public Map<String, Metrics.MetricFamily> families()
    {
        return families;
    }

    /** Whether a family of that name (or with {@code _total} added, for counters) exists. */
    public boolean has(final String name)
    {
        return family(name) != null;
    }

    /**
     * The sum over samples of {@code name} whose labels include {@code labels} (pairs: name, value): a counter's or
     * gauge's value, a histogram's or summary's count.
     *
     * @throws IllegalStateException when no family of that name exists.
     */
    public double value(final String name, final String... labels)
    {
        final Metrics.MetricFamily family = family(name);
        if (family == null)
        {
            throw new IllegalStateException("no metric family " + name + " in " + families.keySet());
        }
        double sum = 0;
        for (final Metrics.Metric m : family.getMetricList())
        {
            if (matches(m, labels))
            {
                sum += switch (family.getType())
                {
                    case COUNTER -> m.getCounter().getValue();
                    case GAUGE -> m.getGauge().getValue();
                    case HISTOGRAM, GAUGE_HISTOGRAM -> m.getHistogram().getSampleCount();
                    case SUMMARY -> m.getSummary().getSampleCount();
                    default -> m.getUntyped().getValue();
                };
            }
        }
        return sum;
    }

    private Metrics.MetricFamily family(final String name)
    {
        final Metrics.MetricFamily f = families.get(name);
        return f != null ? f : families.get(name + "_total");
    }

    private static boolean matches(final Metrics.Metric metric, final String... labels)
    {
        for (int i = 0; i < labels.length; i += 2)
        {
            boolean found = false;
            for (final Metrics.LabelPair pair : metric.getLabelList())
            {
                found |= pair.getName().equals(labels[i]) && pair.getValue().equals(labels[i + 1]);
            }
            if (!found)
            {
                return false;
            }
        }
        return true;
    }
}
