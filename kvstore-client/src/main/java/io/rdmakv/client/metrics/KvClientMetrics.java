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
 * redirects, timeouts, ...) to a service's registry as {@code rdmakv.client.<counter>} function counters, named in
 * snake case after the counter's label ({@code get.oneSided.hits}: {@code rdmakv.client.get.one_sided.hits}) and read
 * at scrape time from the counters the client keeps anyway (nothing is counted twice):
 * <pre>
 *   new KvClientMetrics(client, Tags.of("cluster", "sessions")).bindTo(meterRegistry);
 * </pre>
 * In Prometheus: {@code rdmakv_client_get_one_sided_hits_total}, {@code rdmakv_client_rpc_requests_total}, ...
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

    /** {@code rdmakv.client.} and the counter's label in snake case ({@code oneSided} becomes {@code one_sided}). */
    public static String meterName(final ClientCounter counter)
    {
        final String label = counter.label();
        final StringBuilder name = new StringBuilder("rdmakv.client.");
        for (int i = 0; i < label.length(); i++)
        {
            final char ch = label.charAt(i);
            if (Character.isUpperCase(ch))
            {
                name.append('_').append(Character.toLowerCase(ch));
            }
            else
            {
                name.append(ch);
            }
        }
        return name.toString();
    }

    @Override
    public void bindTo(final MeterRegistry registry)
    {
        for (final ClientCounter c : ClientCounter.values())
        {
            FunctionCounter.builder(meterName(c), client, kv -> kv.diagnostics().counter(c))
                .description("rdmakv client counter " + c.label() + " (ClientCounter." + c.name() + ")")
                .tags(tags)
                .register(registry);
        }
    }
}
