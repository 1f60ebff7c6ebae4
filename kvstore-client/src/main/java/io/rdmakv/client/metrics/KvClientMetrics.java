package io.rdmakv.client.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvClient;

import java.util.List;

/**
 * Binds a {@link KvClient}'s counters ({@link ClientCounter}: one-sided hits, torn-read retries, RPC fallbacks,
 * redirects, timeouts, ...) to a service's registry as {@code rdmakv.client.<counter>} function counters, read at
 * scrape time from the counters the client keeps anyway (nothing is counted twice):
 * <pre>
 *   new KvClientMetrics(client, Tags.of("cluster", "sessions")).bindTo(meterRegistry);
 * </pre>
 * In Prometheus: {@code rdmakv_client_get_oneSided_hits_total}, {@code rdmakv_client_rpc_requests_total}, ...
 */
public final class KvClientMetrics implements MeterBinder
{
    private final KvClient client;
    private final Iterable<Tag> tags;

    public KvClientMetrics(final KvClient client)
    {
        this(client, List.of());
    }

    /** @param tags added to every meter (e.g. which cluster, when a service has several clients). */
    public KvClientMetrics(final KvClient client, final Iterable<Tag> tags)
    {
        this.client = client;
        this.tags = tags;
    }

    @Override
    public void bindTo(final MeterRegistry registry)
    {
        for (final ClientCounter c : ClientCounter.values())
        {
            FunctionCounter.builder("rdmakv.client." + c.label(), client, kv -> kv.diagnostics().counter(c))
                .tags(tags)
                .register(registry);
        }
    }
}
