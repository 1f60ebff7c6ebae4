package io.rdmakv.server.metrics;

import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.replication.Replication;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.transport.device.InfinibandSysfs;

import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * A node's metrics, opened when {@code metrics.port} is set: one Prometheus registry with the node's meters
 * ({@link ServerMeters}, {@link StoreMeters}, {@link RdmaPortMeters}, {@link BuildInfo}, and once the node follows
 * its cluster view {@link ClusterMeters}), the JVM's memory (heap, direct and mapped buffer pools), threads, CPU and
 * uptime, and the HTTP endpoint serving them with the health checks ({@link MetricsEndpoint}).
 *
 * <p>Why Micrometer over prometheus-metrics directly: an embedding service already holds a Micrometer
 * {@code MeterRegistry} (Spring Boot, Quarkus, Micronaut, or its own), and the client binds to whatever registry it
 * is given; the Prometheus registry underneath is prometheus-metrics 1.x, so the exposition is the reference one.
 */
public final class NodeMetrics implements AutoCloseable
{
    private final PrometheusMeterRegistry registry;
    private final ServerMeters requestTimer;
    private final MetricsEndpoint endpoint;
    private final int rdmaCounters;
    private final AutoCloseable logEvents;
    private volatile ClusterMeters cluster;

    private NodeMetrics(final PrometheusMeterRegistry registry, final ServerMeters requestTimer, final int rdmaCounters,
        final InetSocketAddress bind, final Readiness readiness)
    {
        this.registry = registry;
        this.logEvents = LogEventMeters.bindIfLogback(registry);
        this.requestTimer = requestTimer;
        this.rdmaCounters = rdmaCounters;
        this.endpoint = MetricsEndpoint.start(bind, registry, this::beforeScrape, readiness);
    }

    /**
     * Bind everything and start serving on {@code bind}.
     *
     * @param sysfsRoot where RDMA devices are shown ({@link InfinibandSysfs#DEFAULT_ROOT}; tests pass another).
     * @param readiness what {@code /health/ready} answers.
     */
    public static NodeMetrics start(final InetSocketAddress bind, final ServerCounters counters, final RocksStore store,
        final Path sysfsRoot, final Readiness readiness)
    {
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        final ServerMeters timer = ServerMeters.bind(registry, counters);
        StoreMeters.bind(registry, store);
        final int rdma = RdmaPortMeters.bind(registry, sysfsRoot);
        BuildInfo.current().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        // Micrometer's process.cpu.time is in ns (process_cpu_time_ns_total): the Prometheus name, in seconds, instead.
        registry.config().meterFilter(MeterFilter.deny(id -> id.getName().equals("process.cpu.time")));
        new ProcessorMetrics().bindTo(registry);
        ProcessCpu.bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        try
        {
            return new NodeMetrics(registry, timer, rdma, bind, readiness);
        }
        catch (final RuntimeException ex)
        {
            registry.close();
            throw ex;
        }
    }

    /**
     * Export the node's place in the cluster (once its view is started): map epoch, roles, lease, Ratis, replication
     * lag ({@link ClusterMeters}).
     *
     * @param replication the node's replication, or null when it has none.
     */
    public void followCluster(final ClusterView view, final Replication replication)
    {
        cluster = ClusterMeters.bind(registry, view, replication);
    }

    private void beforeScrape()
    {
        final ClusterMeters c = cluster;
        if (c != null)
        {
            c.refresh();
        }
    }

    /** Where the request handler reports request times (also the STATS latency summaries). */
    public ServerMeters requestTimer()
    {
        return requestTimer;
    }

    public PrometheusMeterRegistry registry()
    {
        return registry;
    }

    public InetSocketAddress address()
    {
        return endpoint.address();
    }

    /** RDMA port counters found in sysfs and exported (0 on a host without RDMA devices). */
    public int rdmaCounters()
    {
        return rdmaCounters;
    }

    @Override
    public void close()
    {
        endpoint.close();
        if (logEvents != null)
        {
            try
            {
                logEvents.close();
            }
            catch (final Exception ex)
            {
                // Only detaches its appender from logback; nothing to report at shutdown.
            }
        }
        registry.close();
    }
}
