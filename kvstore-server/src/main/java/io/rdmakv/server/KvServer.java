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
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.handler.HandlerContext;
import io.rdmakv.server.handler.Limits;
import io.rdmakv.server.handler.NodeWrites;
import io.rdmakv.server.handler.ResponseSender;
import io.rdmakv.server.replication.Replication;
import io.rdmakv.server.replication.PeerAccess;
import io.rdmakv.server.replication.ReplicationContext;
import io.rdmakv.server.resp.NodeResp;
import io.rdmakv.server.resp.RespServer;
import io.rdmakv.server.handler.RequestHandler;
import io.rdmakv.server.handler.SessionWindows;
import io.rdmakv.server.handler.SlotRouter;
import io.rdmakv.server.metrics.MetricsEndpoint;
import io.rdmakv.server.metrics.NodeGauges;
import io.rdmakv.server.metrics.NodeMetrics;
import io.rdmakv.server.metrics.NodeReadiness;
import io.rdmakv.server.metrics.ServerMeters;
import io.rdmakv.server.pool.PoolSizing;
import io.rdmakv.server.pool.PoolWarmUp;
import io.rdmakv.server.store.DataVersions;
import io.rdmakv.server.handler.HandOff;
import io.rdmakv.server.session.Revocations;
import io.rdmakv.server.session.SessionTickets;
import io.rdmakv.server.session.UsersDirectory;
import io.rdmakv.transport.tls.TlsSettings;
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
    /** Everything opened, closed in reverse order (also when a start-up step fails). */
    private final OpenedResources opened;

    private final String transportName;
    private final String transportReason;
    private final Transport transport;
    private final PoolGeometry geometry;
    private final PinnedArena arena;
    private final RocksStore store;
    /** The epoch, the pool index and what warm-up loaded. */
    private final PoolLayout layout;
    private final MemoryRegion region;
    /** Whether each data session of the main transport reads the pool through a memory window of its own. */
    private final boolean windows;
    private final long registrationsAfterStart;
    private final OwnershipPublisher ownership;
    private final Replication replication;
    /** Null when {@code metrics.port} is 0. */
    private final NodeMetrics metrics;
    /** Request times by operation (the metrics endpoint's, or kept for STATS only). */
    private final ServerMeters requestTimes;
    private final Listener listener;
    /** Null when no transport is served beside the main one. */
    private final SideTransports side;
    private final NodeWelcomes welcomes;
    private final ControlServer control;
    /** Null when {@code resp.port} is 0. */
    private final RespServer resp;
    private final InetSocketAddress controlAddress;
    private final InetSocketAddress dataAddress;
    private final ClusterView clusterView;
    private final long registrationsWhenReady;
    private final StartupReport startup;
    private volatile boolean closed;
    /** From the end of the start until close begins: what /health/ready needs first. */
    private volatile boolean serving;

    /** Start the node (see the class comment); what it opened is pushed on {@code opened} as it goes. */
    private KvServer(final ServerConfig config, final ClusterView givenView, final OpenedResources opened)
    {
        this.config = config;
        this.cluster = new ClusterWiring(config, givenView);
        this.opened = opened;
        ServerOpenFiles.raiseAndReport(config);
        final String open = OpenNode.warning(config.host(), config.security().requiresCredential());
        if (open != null)
        {
            LOG.warn(open);
        }
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
        final List<TransportProvider> sidePlan;
        final boolean sharedPool;
        try
        {
            final TransportSelector selector = TransportSelector.fromClassPath();
            final TransportSelector.Selection selection = selector.select(NodeTls.transport(config));
            transportName = selection.provider().name();
            transportReason = selection.reason();
            sidePlan = SideTransports.plan(selection.provider(), selector,
                ShmDecision.decide(config, selection.provider(), selector, HostIdentity.current()));
            // The pool must be a shared memory file the transport can hand to peers (shm).
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
        geometry = PoolSizing.plan(config.poolSize(), config.indexAvgEntryBytes());
        try
        {
            arena = mapPool(config, transportName, geometry, sharedPool);
            opened.push(arena);
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

        final MemoryDomain memoryDomain = transport.memoryDomain();
        // The whole pool, once, remote READ only: clients can never write server memory. Registration does not
        // depend on the contents (on verbs it pins pages that mlock already faulted in), so it runs on its own
        // thread while warm-up writes them; nothing can read the pool before the ports open.
        windows = PoolWindows.decide(config, transportName, transport.capabilities());
        final EnumSet<MemoryAccess> poolAccess = windows ? EnumSet.of(MemoryAccess.REMOTE_READ,
            MemoryAccess.BIND_WINDOWS) : EnumSet.of(MemoryAccess.REMOTE_READ);
        final StartupTask<MemoryRegion> registering = StartupTask.start("register-pool",
            () -> memoryDomain.register(arena.address(), arena.size(), poolAccess));
        try
        {
            // Epoch, allocator, empty index and header, then the warm-up from RocksDB.
            layout = PoolLayout.layOut(config, arena, geometry, store, timeline);
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

        // The gauges first: the metrics endpoint binds what is registered when it starts.
        NodeGauges.register(counters, layout.index(), memoryDomain, store, arena, transportName, transportReason,
            this::requestTimes);
        metrics = startMetrics();
        requestTimes = metrics == null ?
            // No endpoint; request times are still kept for STATS.
            ServerMeters.timersOnly(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)) : metrics.requestTimer();

        final Worker worker = transport.createWorker("server");
        opened.push(worker);
        final SessionTickets tickets = new SessionTickets(Duration.ofMillis(config.ticketTtlMillis()),
            MAX_OUTSTANDING_TICKETS, new SystemNanoClock());
        // The write-path chain, finished before the handler: replication follows the cluster view once the ports
        // are bound (below); until then writes are local only.
        final RequestThreadWakeUp wakeUp = new RequestThreadWakeUp();
        // Data versions above every one in the store (the warm-up's highest) and, by their low bits, this node's own.
        final DataVersions versions = new DataVersions(config.nodeId());
        versions.observe(layout.warmUp().maxDataVersion());
        final NodeWrites writes = new NodeWrites(store, layout.index(), counters, limits,
            new ResponseSender(counters, limits.maxResponseBytes()), wakeUp, versions);
        replication = new Replication(new ReplicationContext(store.ranges(), worker, transportName,
            new PeerAccess(config.secret(), config.security().tls()),
            config.maxMessageBytes(), config.replicationTimeoutMillis(), config.replicationAckPollMicros(), counters),
            writes);
        // Until the cluster view starts (it needs the bound ports) the static map routes, or, in cluster mode, nothing.
        final SlotRouter router = cluster.routerUntilViewStarts();
        final RequestHandler handler = new RequestHandler(writes,
            new HandlerContext(router, tickets, config.admission(), requestTimes), replication.clientWrites(),
            replication.replicaInbox());
        final UsersDirectory users = config.security().usersFile() == null ? null :
            new UsersDirectory(config.security().usersFile());
        handler.sessionAccess(windows ? PoolWindows.binder(worker, region, arena.address(), arena.size()) :
            SessionWindows.NO_WINDOWS,
            users == null ? Revocations.NONE : users, wakeUp);
        // One-sided readers trust this pool only for the slots its ownership words say LIVE: a static node's now, a
        // cluster node's as its view commits them (startClusterView).
        ownership = new OwnershipPublisher(arena.partitions(), config.nodeId());
        opened.push(ownership::close); // before the pool is unmapped: a view may outlive the node
        cluster.publishStaticOwnership(ownership, router);
        // The request thread: the worker's event loop on tcp (requests handled where they are read), a polling
        // thread on verbs. Started before listening: an event-driven worker must be driven before it has endpoints.
        // Events of transports served beside the main one, and of RESP connections on a node whose request thread is
        // no event loop, reach the handler here.
        final boolean respHandedOff = config.resp().enabled() && !NodeResp.onRequestThread(worker);
        final HandOff handOff = sidePlan.isEmpty() && !respHandedOff ? null : new HandOff(handler, wakeUp);
        final WorkerProgress progress = Progress.start(worker, new ServerAgent(handler, layout.index(), handOff),
            "rdmakv-server", t -> LOG.error("request thread error", t));
        opened.push(progress);
        wakeUp.bindTo(progress);
        LOG.info("request thread: {}", switch (worker.progressModel())
        {
            case EVENT_DRIVEN -> "the transport's event loop (event-driven)";
            case ARMABLE -> "a progress thread that sleeps on the worker's completion channel when idle (armable)";
            default -> "a polling progress thread (bounded parks)";
        });
        listener = worker.listen(new InetSocketAddress(config.host(), config.dataPort()), handler);
        opened.push(listener);
        dataAddress = listener.localAddress();
        side = sidePlan.isEmpty() ? null : SideTransports.open(sidePlan, config, transportConfig(config),
            arena.address(), arena.size(), new SideTransports.RequestThread(progress, handler, handOff),
            config.serveShm() == ShmServing.AUTO);
        if (side != null)
        {
            opened.push(side);
        }

        // With windows the pool's own key never leaves the node: each session gets its window's in the ATTACH answer.
        welcomes = new NodeWelcomes(config, transportName, advertisedDataPort(), windows ? new byte[0] :
            region.remoteKey().pack(),
            transport.capabilities().has(TransportCapability.HOST_LOCAL) ? HostIdentity.current() : "",
            side == null ? List.of() : side.served(), geometry, layout.epoch(), arena.address(), tickets,
            cluster::started);
        control = new ControlServer(new InetSocketAddress(config.host(), config.controlPort()),
            new ControlServer.ControlSettings(config.maxControlFrameBytes(), config.maxConnections(), config.secret(),
                config.admission(), users, users != null &&
                config.security().tls().clientAuth() == TlsSettings.Auth.REQUIRED),
            welcomes::issue, cluster.admin(), counters, config.security().tlsContexts());
        opened.push(control);
        controlAddress = control.start();
        resp = NodeResp.start(config, tickets, worker, handler, handOff, layout.index(), store, counters,
            arena.size(), cluster::started, users);
        if (resp != null)
        {
            opened.push(resp); // closed before the request thread stops: its connections are that thread's endpoints
        }
        // The node's cluster view, once its ports are bound: the Ratis group's decisions in cluster mode
        // (cluster.voters), else the fixed map of its settings. Request handling follows it from here on.
        clusterView = cluster.start(advertisedControlPort(), advertisedDataPort(),
            resp == null ? 0 : resp.localAddress().getPort(), opened);
        cluster.follow(clusterView, config.advertisedHost() + ':' + advertisedControlPort(), handler, replication,
            ownership);
        if (metrics != null)
        {
            metrics.followCluster(clusterView, replication);
        }
        timeline.mark("listen");
        registrationsWhenReady = memoryDomain.registrationCount();
        startup = timeline.build(layout.index().keyCount(), layout.warmUp().loadedBytes(),
            layout.warmUp().keysInStore(), layout.warmUp().scannedAll(), layout.index().isComplete());
        LOG.info("node {} ready: control {}, data {} over {} ({}); clients are told {}:{} and {}:{}", config.nodeId(),
            controlAddress, dataAddress, transportName, transportReason, config.advertisedHost(),
            advertisedControlPort(), config.advertisedHost(), advertisedDataPort());
        LOG.info("startup: {}", startup.format());
        serving = true;
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
        final OpenedResources opened = new OpenedResources();
        try
        {
            return new KvServer(config, clusterView, opened);
        }
        catch (final RuntimeException ex)
        {
            opened.closeAll();
            if (ex instanceof ServerStartException sse)
            {
                throw sse;
            }
            throw new ServerStartException(ex.getMessage() == null ? ex.toString() : ex.getMessage(), ex);
        }
    }

    /** What this node sent each replica since its link last dropped, and what it answered (tests, status). */
    public java.util.Map<Integer, io.rdmakv.server.replication.ReplicaLag.Snapshot> replicaLag()
    {
        return replication.lag();
    }

    /** This run's replication incarnation (the id its REPLICATEs' sequences count under). */
    public long replicationIncarnation()
    {
        return replication.incarnation();
    }

    /** This node's cluster view (a static one unless it runs in cluster mode); null while the node starts. */
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

    /** Map and pin the pool of {@code geometry} (the memlock check refuses with the pool's own message). */
    private static PinnedArena mapPool(final ServerConfig config, final String transportName,
        final PoolGeometry geometry, final boolean sharedPool)
    {
        final PinPolicy pin = PinPolicy.valueOf(config.pinMode().resolve(transportName).name());
        final int partitionSize = (int)Math.min(config.poolPartitionSize(), Integer.MAX_VALUE);
        return sharedPool ?
            PinnedArena.mapShared(config.poolSize(), pin, HugePages.valueOf(config.hugePages()), partitionSize) :
            PinnedArena.map(config.poolSize(), pin, HugePages.valueOf(config.hugePages()), partitionSize);
    }

    /**
     * The Prometheus endpoint when {@code metrics.port} is set (every counter and gauge, and request times), started
     * before the ports open; null when it is 0.
     */
    private NodeMetrics startMetrics()
    {
        if (config.metricsPort() == 0)
        {
            return null;
        }
        // A test can show the node a described sysfs (RDMA port counters on a host without RDMA).
        final String sysfs = System.getProperty("rdmakv.metrics.sysfsRoot");
        final NodeMetrics started = NodeMetrics.start(new InetSocketAddress(config.host(), config.metricsPort()),
            counters, store, sysfs == null ? InfinibandSysfs.DEFAULT_ROOT : java.nio.file.Path.of(sysfs),
            new NodeReadiness(() -> serving, cluster::started));
        opened.push(started);
        LOG.info("metrics: http://{}:{}{} ({} RDMA port counters from sysfs), health {} and {}",
            config.advertisedHost(), started.address().getPort(), MetricsEndpoint.PATH, started.rdmaCounters(),
            MetricsEndpoint.LIVE, MetricsEndpoint.READY);
        return started;
    }

    /** Request times (null while the node starts). */
    private ServerMeters requestTimes()
    {
        return requestTimes;
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
        return transport.memoryDomain().registrationCount();
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
        return layout.epoch();
    }

    public PoolWarmUp.Result warmUp()
    {
        return layout.warmUp();
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
        control.stopAccepting();
        listener.close();
        if (side != null)
        {
            side.stopAccepting();
        }
        WriteDrain.await(counters);
        if (registrationCount() != registrationsWhenReady)
        {
            LOG.error("memory registrations grew after start-up: {} -> {} (data path must never register)",
                registrationsWhenReady, registrationCount());
        }
        opened.closeAll();
        LOG.info("node {} stopped", config.nodeId());
    }
}
