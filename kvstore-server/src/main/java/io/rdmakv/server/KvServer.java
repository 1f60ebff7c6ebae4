package io.rdmakv.server;

import io.rdmakv.pool.HugePages;
import io.rdmakv.pool.PinPolicy;
import io.rdmakv.pool.PinnedArena;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.OwnershipPublisher;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.config.ShmServing;
import io.rdmakv.server.control.ControlServer;
import io.rdmakv.server.replication.PeerAccess;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.handler.Limits;
import io.rdmakv.server.replication.Replication;
import io.rdmakv.server.handler.RequestHandler;
import io.rdmakv.server.resp.NodeResp;
import io.rdmakv.server.resp.RespServer;
import io.rdmakv.server.handler.SlotRouter;
import io.rdmakv.server.metrics.MetricsEndpoint;
import io.rdmakv.server.metrics.NodeGauges;
import io.rdmakv.server.metrics.NodeMetrics;
import io.rdmakv.server.metrics.NodeReadiness;
import io.rdmakv.server.metrics.ServerMeters;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.server.pool.PoolSizing;
import io.rdmakv.server.pool.PoolWarmUp;
import io.rdmakv.server.handler.HandOff;
import io.rdmakv.server.session.SessionTickets;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryDomain;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerProgress;
import io.rdmakv.transport.device.InfinibandSysfs;
import io.rdmakv.transport.progress.Progress;
import io.rdmakv.transport.select.HostIdentity;
import io.rdmakv.transport.select.TransportSelector;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

/**
 * One key-value server node, embeddable (tests start it in-process) and run by {@code ServerMain}.
 *
 * <pre>
 *   start:  open RocksDB (own thread)
 *           || select transport (logged) -> open transport (own thread)
 *           || map + pin pool (memlock check)
 *           -> register the WHOLE pool once, REMOTE_READ (own thread)
 *              || lay out pool, warm up (RocksDB scan thread || this thread writing the pool)
 *           -> listen on data port (request thread) -> control plane on control port -> log the startup line
 *   close:  stop accepting (control + data) -> let in-flight writes finish -> stop request thread
 *           -> close connections, deregister, close transport -> flush + close RocksDB -> unmap pool
 * </pre>
 * The cluster view and what follows it: {@link ClusterWiring}; the wait for in-flight writes: {@link WriteDrain}.
 */
public final class KvServer implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(KvServer.class);
    /** Session tickets issued and not yet redeemed, at most (a handshake loop cannot grow the table further). */
    private static final int MAX_OUTSTANDING_TICKETS = 65_536;

    private final ServerConfig config;
    /** The cluster view given by the embedder or built from the settings, and what follows it. */
    private final ClusterWiring cluster;
    private final ServerCounters counters = new ServerCounters();
    private final OpenedResources opened = new OpenedResources();

    private String transportName;
    private String transportReason;
    /** The pool must be a shared memory file the transport can hand to peers (shm). */
    private boolean sharedPool;
    private PinnedArena arena;
    private RocksStore store;
    private PoolIndex index;
    private PoolGeometry geometry;
    private OwnershipPublisher ownership;
    private long epoch;
    private Transport transport;
    private MemoryDomain memoryDomain;
    private MemoryRegion region;
    private long registrationsAfterStart;
    private long registrationsWhenReady;
    private Listener listener;
    private List<TransportProvider> sidePlan = List.of();
    private SideTransports side;
    private RequestHandler handler;
    private SessionTickets tickets;
    private NodeWelcomes welcomes;
    private WorkerProgress progress;
    private ControlServer control;
    private RespServer resp;
    private volatile ClusterView clusterView;
    private Replication replication;
    private InetSocketAddress controlAddress;
    private InetSocketAddress dataAddress;
    private PoolWarmUp.Result warmUp;
    private StartupReport startup;
    private NodeMetrics metrics;
    private ServerMeters requestTimes;
    private volatile boolean closed;
    /** From the end of the start until close begins: what /health/ready needs first. */
    private volatile boolean serving;

    private KvServer(final ServerConfig config, final ClusterView givenView)
    {
        this.config = config;
        this.cluster = new ClusterWiring(config, givenView);
    }

    /**
     * Start a node.
     *
     * @throws ServerStartException with an operator-facing message (for a memlock refusal: the pool's message
     *                              verbatim) when any step fails; everything opened so far is closed again.
     */
    public static KvServer start(final ServerConfig config)
    {
        return start(config, null);
    }

    /**
     * Start a node of a replicated cluster: it replicates the writes of the ranges it is primary of to their backups
     * ({@code ReplicatingWritePath}) and takes the writes of the ranges it replicates ({@code ReplicaGate}), both as
     * {@code clusterView} says. The view is not closed by the node.
     *
     * @param clusterView the cluster's configuration; {@code null} for a node on its own.
     */
    public static KvServer start(final ServerConfig config, final ClusterView clusterView)
    {
        final KvServer server = new KvServer(config, clusterView);
        try
        {
            server.doStart();
            return server;
        }
        catch (final RuntimeException ex)
        {
            server.opened.closeAll();
            if (ex instanceof ServerStartException sse)
            {
                throw sse;
            }
            throw new ServerStartException(ex.getMessage() == null ? ex.toString() : ex.getMessage(), ex);
        }
    }

    private void doStart()
    {
        ServerOpenFiles.raiseAndReport(config);
        if (config.advertisedLoopbackOnly())
        {
            LOG.warn("advertised host: {}", config.advertisedHostReason());
        }
        else if (config.advertisedHostPicked())
        {
            LOG.info("advertised host: {}", config.advertisedHostReason());
        }
        final StartupReport.Builder timeline = new StartupReport.Builder();
        // Independent steps overlap: RocksDB opens (loading its native library first) and the transport opens on
        // threads of their own while this one maps and pins the pool.
        final StartupTask<RocksStore> storeOpening = StartupTask.start("open-store",
            () -> RocksStore.open(config.dataDir(), config.durability(), RocksStore.DEFAULT_QUEUE_CAPACITY,
                config.writeBufferSize(), config.walRecovery(), config.diskReserve()));
        final Limits limits = limitsOf(config);
        final StartupTask<Transport> transportOpening;
        try
        {
            final TransportSelector selector = TransportSelector.fromClassPath();
            final TransportSelector.Selection selection = selector.select(NodeTls.transport(config));
            transportName = selection.provider().name();
            transportReason = selection.reason();
            sidePlan = SideTransports.plan(selection.provider(), selector,
                ShmDecision.decide(config, selection.provider(), selector, HostIdentity.current()));
            sharedPool = selection.provider().capabilities().has(TransportCapability.MEMORY_FILE_REGIONS) ||
                SideTransports.needSharedPool(sidePlan);
            timeline.mark("transport selection");
            final TransportConfig tc = transportConfig(config);
            ServerPinnedMemory.of(config, selection.provider()).checkAtStart();
            transportOpening = StartupTask.start("open-transport", () -> selection.provider().open(tc));
        }
        catch (final RuntimeException ex)
        {
            throw StartupTask.closeWhenDone(ex, storeOpening);
        }
        try
        {
            mapPool();
        }
        catch (final RuntimeException ex)
        {
            throw StartupTask.closeWhenDone(StartupTask.closeWhenDone(ex, storeOpening), transportOpening);
        }
        timeline.mark("pool map+pin");
        try
        {
            store = storeOpening.join();
            opened.push(store);
        }
        catch (final RuntimeException ex)
        {
            throw StartupTask.closeWhenDone(ex, transportOpening);
        }
        transport = transportOpening.join();
        opened.push(transport);
        timeline.mark("wait for RocksDB and transport");
        timeline.add("RocksDB open", storeOpening.millis(), true);
        timeline.add("transport open", transportOpening.millis(), true);
        timeline.resetMark();

        memoryDomain = transport.memoryDomain();
        // The whole pool, once, remote READ only: clients can never write server memory. Registration does not
        // depend on the contents (on verbs it pins pages that mlock already faulted in), so it runs on its own
        // thread while warm-up writes them; nothing can read the pool before the ports open.
        final StartupTask<MemoryRegion> registering = StartupTask.start("register-pool",
            () -> memoryDomain.register(arena.address(), arena.size(), EnumSet.of(MemoryAccess.REMOTE_READ)));
        try
        {
            layOutAndWarmUp(timeline);
        }
        catch (final RuntimeException ex)
        {
            throw StartupTask.closeWhenDone(ex, registering);
        }
        region = registering.join();
        opened.push(region);
        registrationsAfterStart = memoryDomain.registrationCount();
        timeline.add("pool registration", registering.millis(), true);
        timeline.resetMark();

        final Worker worker = transport.createWorker("server");
        opened.push(worker);
        tickets = new SessionTickets(Duration.ofMillis(config.ticketTtlMillis()), MAX_OUTSTANDING_TICKETS,
            new SystemNanoClock());
        // Replication follows the cluster view once the ports are bound (below); until then writes are local only.
        replication = new Replication(store.ranges(), worker, transportName,
            new PeerAccess(config.secret(), config.security().tls()),
            config.maxMessageBytes(), config.replicationTimeoutMillis(), config.replicationAckPollMicros(), counters);
        // Until the cluster view starts (it needs the bound ports) the static map routes, or, in cluster mode, nothing.
        final SlotRouter router = cluster.routerUntilViewStarts();
        handler = new RequestHandler(store, index, counters, limits, router, tickets, config.admission(),
            replication.writePath(), replication.admission());
        // One-sided readers trust this pool only for the slots its ownership words say LIVE: a static node's now, a
        // cluster node's as its view commits them (startClusterView).
        ownership = new OwnershipPublisher(arena.partitions(), config.nodeId());
        opened.push(ownership::close); // before the pool is unmapped: a view may outlive the node
        cluster.publishStaticOwnership(ownership, router);
        // The request thread: the worker's event loop on tcp (requests handled where they are read), a polling
        // thread on verbs. Started before listening: an event-driven worker must be driven before it has endpoints.
        // Events of transports served beside the main one, and of RESP connections, reach the handler here.
        final HandOff handOff = sidePlan.isEmpty() && !config.resp().enabled() ? null : new HandOff(handler);
        progress = Progress.start(worker, new ServerAgent(handler, index, handOff), "rdmakv-server",
            t -> LOG.error("request thread error", t));
        opened.push(progress);
        handler.wakeUpWith(progress::signal);
        LOG.info("request thread: {}", switch (worker.progressModel())
        {
            case EVENT_DRIVEN -> "the transport's event loop (event-driven)";
            case ARMABLE -> "a progress thread that sleeps on the worker's completion channel when idle (armable)";
            default -> "a polling progress thread (bounded parks)";
        });
        listener = worker.listen(new InetSocketAddress(config.host(), config.dataPort()), handler);
        opened.push(listener);
        dataAddress = listener.localAddress();
        if (handOff != null)
        {
            handOff.wakeUpWith(progress::signal);
        }
        if (!sidePlan.isEmpty())
        {
            side = SideTransports.open(sidePlan, config, transportConfig(config), arena.address(), arena.size(),
                new SideTransports.RequestThread(progress, handler, handOff), config.serveShm() == ShmServing.AUTO);
            opened.push(side);
        }

        NodeGauges.register(counters, index, memoryDomain, store, arena, transportName, transportReason,
            () -> requestTimes);
        startMetrics();

        welcomes = new NodeWelcomes(config, transportName, advertisedDataPort(), region.remoteKey().pack(),
            transport.capabilities().has(TransportCapability.HOST_LOCAL) ? HostIdentity.current() : "", side == null ? List.of() : side.served(), geometry, epoch, arena.address(), tickets, () -> clusterView);
        control = new ControlServer(new InetSocketAddress(config.host(), config.controlPort()),
            new ControlServer.ControlSettings(config.maxControlFrameBytes(), config.maxConnections(), config.secret(),
                config.admission()),
            welcomes::issue, counters, config.security().tlsContexts());
        opened.push(control);
        controlAddress = control.start();
        resp = NodeResp.start(config, tickets, worker, handler, handOff, index, store, counters, arena.size(),
            () -> clusterView);
        if (resp != null)
        {
            opened.push(resp); // closed before the request thread stops: its connections are that thread's endpoints
        }
        startClusterView();
        if (metrics != null)
        {
            metrics.followCluster(clusterView, replication);
        }
        timeline.mark("listen");
        registrationsWhenReady = memoryDomain.registrationCount();
        startup = timeline.build(index.keyCount(), warmUp.loadedBytes(), warmUp.keysInStore(), warmUp.scannedAll(),
            index.isComplete());
        LOG.info("node {} ready: control {}, data {} over {} ({}); clients are told {}:{} and {}:{}", config.nodeId(),
            controlAddress, dataAddress, transportName, transportReason, config.advertisedHost(),
            advertisedControlPort(), config.advertisedHost(), advertisedDataPort());
        LOG.info("startup: {}", startup.format());
        serving = true;
    }

    /**
     * The node's cluster view, once its ports are bound: the Ratis group's decisions in cluster mode
     * ({@code cluster.voters}), else the fixed map of its settings. Request handling follows it from here on.
     */
    private void startClusterView()
    {
        clusterView = cluster.start(advertisedControlPort(), advertisedDataPort(),
            resp == null ? 0 : resp.localAddress().getPort(), opened);
        cluster.follow(clusterView, config.advertisedHost() + ':' + advertisedControlPort(), handler, replication,
            ownership, control);
    }

    /** This run's replication incarnation (the id its REPLICATEs' sequences count under); 0 before start. */
    public long replicationIncarnation()
    {
        return replication == null ? 0 : replication.incarnation();
    }

    /** This node's cluster view (a static one unless it runs in cluster mode). */
    public ClusterView clusterView()
    {
        return clusterView;
    }

    /**
     * The settings a node opens its transport with: its credits per endpoint, a message size that holds the largest
     * answer, the node's shm defaults ({@link ShmDecision#nodeDefaults}), and every transport setting as is.
     */
    public static TransportConfig transportConfig(final ServerConfig config)
    {
        final Limits limits = limitsOf(config);
        final TransportConfig.Builder tc = TransportConfig.builder()
            .maxInflightPerEndpoint(config.maxInflightPerEndpoint())
            .maxMessageBytes(Math.max(config.maxMessageBytes(), limits.maxResponseBytes()));
        ShmDecision.nodeDefaults(tc);
        config.transportProperties().forEach(tc::property);
        config.security().tls().properties().forEach(tc::property);
        return tc.build();
    }

    /** The request limits a node enforces, from its configuration. */
    private static Limits limitsOf(final ServerConfig config)
    {
        return new Limits(config.maxKeyBytes(), config.maxValueBytes(), config.maxConnections());
    }

    /** Epoch, allocator, empty index and header, then the warm-up from RocksDB ({@link PoolLayout}). */
    private void layOutAndWarmUp(final StartupReport.Builder timeline)
    {
        final PoolLayout layout = PoolLayout.layOut(config, arena, geometry, store, timeline);
        epoch = layout.epoch();
        index = layout.index();
        warmUp = layout.warmUp();
    }

    /** Plan the pool's geometry, then map and pin it (the memlock check refuses with the pool's own message). */
    private void mapPool()
    {
        final PinPolicy pin = PinPolicy.valueOf(config.pinMode().resolve(transportName).name());
        geometry = PoolSizing.plan(config.poolSize(), config.indexAvgEntryBytes());
        final int partitionSize = (int)Math.min(config.poolPartitionSize(), Integer.MAX_VALUE);
        arena = sharedPool ?
            PinnedArena.mapShared(config.poolSize(), pin, HugePages.valueOf(config.hugePages()), partitionSize) :
            PinnedArena.map(config.poolSize(), pin, HugePages.valueOf(config.hugePages()), partitionSize);
        opened.push(arena);
    }

    /** The Prometheus endpoint when {@code metrics.port} is set: every counter and gauge above, and request times. */
    private void startMetrics()
    {
        if (config.metricsPort() == 0)
        {
            // No endpoint; request times are still kept for STATS.
            requestTimes = ServerMeters.timersOnly(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
            handler.timeRequestsWith(requestTimes);
            return;
        }
        // A test can show the node a described sysfs (RDMA port counters on a host without RDMA).
        final String sysfs = System.getProperty("rdmakv.metrics.sysfsRoot");
        metrics = NodeMetrics.start(new InetSocketAddress(config.host(), config.metricsPort()), counters, store,
            sysfs == null ? InfinibandSysfs.DEFAULT_ROOT : java.nio.file.Path.of(sysfs),
            new NodeReadiness(() -> serving, () -> clusterView));
        opened.push(metrics);
        requestTimes = metrics.requestTimer();
        handler.timeRequestsWith(requestTimes);
        LOG.info("metrics: http://{}:{}{} ({} RDMA port counters from sysfs), health {} and {}",
            config.advertisedHost(), metrics.address().getPort(), MetricsEndpoint.PATH, metrics.rdmaCounters(),
            MetricsEndpoint.LIVE, MetricsEndpoint.READY);
    }

    /** Where RESP clients connect, or {@code null} when {@code resp.port} is 0. */
    public InetSocketAddress respAddress()
    {
        return resp == null ? null : resp.localAddress();
    }

    /** Where metrics are served, or {@code null} when {@code metrics.port} is 0. */
    public InetSocketAddress metricsAddress()
    {
        return metrics == null ? null : metrics.address();
    }

    /** The node's meter registry, or {@code null} when metrics are off. */
    public io.micrometer.core.instrument.MeterRegistry meterRegistry()
    {
        return metrics == null ? null : metrics.registry();
    }

    /**
     * The node's facts as a client's WELCOME carries them, with an all-zero session ticket that no data endpoint
     * accepts (tests and tools read the facts; only the control plane hands out usable tickets).
     */
    public Welcome welcome()
    {
        return welcomes.facts();
    }

    public InetSocketAddress controlAddress()
    {
        return controlAddress;
    }

    public InetSocketAddress dataAddress()
    {
        return dataAddress;
    }

    /** The control port clients and peers are told: {@code advertised.controlPort}, else the bound one. */
    public int advertisedControlPort()
    {
        return config.advertisedControlPort(controlAddress.getPort());
    }

    /** The data port clients and peers are told: {@code advertised.dataPort}, else the bound one. */
    public int advertisedDataPort()
    {
        return config.advertisedDataPort(dataAddress.getPort());
    }

    public String transportName()
    {
        return transportName;
    }

    /** What the opened transport reports it does, with the limits it was opened with (e.g. its credits). */
    public TransportCapabilities transportCapabilities()
    {
        return transport.capabilities();
    }

    /** The node's RocksDB store (tests and tools read a replica's data through it; thread-safe). */
    public RocksStore store()
    {
        return store;
    }

    public ServerCounters counters()
    {
        return counters;
    }

    public ServerConfig config()
    {
        return config;
    }

    /**
     * Registrations the transport's memory domain has performed; flat after start: the pool, and on verbs the request
     * worker's endpoint buffers (see {@link #registrationsWhenReady()}).
     */
    public long registrationCount()
    {
        return memoryDomain.registrationCount();
    }

    /** The count right after the pool was registered at start-up. */
    public long registrationsAfterStart()
    {
        return registrationsAfterStart;
    }

    /** The count when the node became ready (the pool, start-up workers' buffers); stopping checks it held. */
    public long registrationsWhenReady()
    {
        return registrationsWhenReady;
    }

    public RemoteKey remoteKey()
    {
        return region.remoteKey();
    }

    /** Writes this node's slot ownership words into its pool (a cluster view's listener calls {@code apply}). */
    public OwnershipPublisher ownership()
    {
        return ownership;
    }

    public PoolGeometry geometry()
    {
        return geometry;
    }

    /** The pool's first byte in this process (what one-sided reads name). */
    public long poolAddress()
    {
        return arena.address();
    }

    public long epoch()
    {
        return epoch;
    }

    public PoolWarmUp.Result warmUp()
    {
        return warmUp;
    }

    /** What start-up took, phase by phase (also logged once serving began). */
    public StartupReport startupReport()
    {
        return startup;
    }

    /** Gracefully stop (see the class comment). Idempotent. */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        serving = false;
        LOG.info("node {} stopping", config.nodeId());
        if (control != null)
        {
            control.stopAccepting();
        }
        if (listener != null)
        {
            listener.close();
        }
        if (side != null)
        {
            side.stopAccepting();
        }
        WriteDrain.await(counters);
        if (memoryDomain != null && memoryDomain.registrationCount() != registrationsWhenReady)
        {
            LOG.error("memory registrations grew after start-up: {} -> {} (data path must never register)",
                registrationsWhenReady, memoryDomain.registrationCount());
        }
        opened.closeAll();
        LOG.info("node {} stopped", config.nodeId());
    }
}
