package io.rdmakv.server;

import io.rdmakv.protocol.wire.TransportAddress;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.handler.HandOff;
import io.rdmakv.server.handler.RequestHandler;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerProgress;
import io.rdmakv.transport.progress.Progress;
import io.rdmakv.transport.select.HostIdentity;
import io.rdmakv.transport.select.TransportSelector;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * The transports a node serves beside its main one, as UCX serves several: TCP always (so a client without the main
 * transport is still served), shm as {@link ShmDecision} decides ({@code transport.serveShm}: by default beside tcp,
 * for clients on this host). Each registers the same pool
 * with its own memory domain (its own remote key, in its WELCOME address), has its own worker and listener, and is
 * progressed in one of two ways, so the request thread stays the pool index's single writer:
 * <pre>
 *   hosted (shm beside tcp):  the main worker's progress hosts it ({@link WorkerProgress#host}): its callbacks run on
 *                             the request thread itself, straight into the {@link RequestHandler} (one wake-up per
 *                             request, as on the main transport)
 *   own thread (otherwise):   a progress thread of its own hands its endpoints' events to the request thread
 *                             ({@link HandOff}: a copy, a queue and a wake-up)
 * </pre>
 * Replication and the node's own connections use the main transport only.
 */
final class SideTransports implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(SideTransports.class);
    private static final String TCP = "tcp";
    private static final String SHM = "shm";

    /** One side transport, open and listening; {@code hosted}: progressed on the request thread itself. */
    record Served(String name, MemoryRegion region, Listener listener, boolean hostLocal, boolean hosted)
    {
    }

    /**
     * Where a side transport's endpoint events go: the request thread's progress (which may host the side worker) and
     * the handler it runs, or the hand-off to it from a thread of the side worker's own.
     */
    record RequestThread(WorkerProgress progress, EndpointHandler handler, HandOff handOff)
    {
    }

    private final List<Served> served = new ArrayList<>();
    private final OpenedResources opened = new OpenedResources();

    private SideTransports()
    {
    }

    /**
     * Which transports to serve beside {@code main}: TCP unless it is the main one (one unusable here is logged with
     * its cause and left out: the main transport still serves), then shm as {@code shm} decided, logged once with why.
     *
     * @param main     the main transport.
     * @param selector the transports on the class path.
     * @param shm      whether to serve shm beside it ({@link ShmDecision}).
     * @return the providers, TCP first.
     */
    static List<TransportProvider> plan(final TransportProvider main, final TransportSelector selector,
        final ShmDecision shm)
    {
        final List<TransportProvider> plan = new ArrayList<>();
        if (!TCP.equals(main.name()))
        {
            try
            {
                plan.add(selector.evaluate(TCP).provider());
            }
            catch (final TransportException ex)
            {
                LOG.warn("not serving tcp beside {}: {}", main.name(), ex.getMessage());
            }
        }
        if (shm.serves())
        {
            plan.add(shm.provider());
            LOG.info("serving shm beside {} ({})", main.name(), shm.reason());
        }
        else if (!SHM.equals(main.name()))
        {
            LOG.info("not serving shm beside {} ({})", main.name(), shm.reason());
        }
        return plan;
    }

    /** Whether any of {@code providers} needs the pool in a memory file it can hand to peers. */
    static boolean needSharedPool(final List<TransportProvider> providers)
    {
        return providers.stream().anyMatch(p -> p.capabilities().has(TransportCapability.MEMORY_FILE_REGIONS));
    }

    /**
     * Open, register the pool with and listen on every planned transport.
     *
     * @param plan        from {@link #plan}.
     * @param config      the node's settings (bind host, ports).
     * @param tc          the transport settings the main transport was opened with.
     * @param poolBase    the pool's first byte.
     * @param poolSize    its length.
     * @param requestThread the request thread: its progress, its handler and the hand-off to it.
     * @param shmOptional whether shm failing to open or listen is logged and the node goes on without it
     *                    ({@code transport.serveShm=auto}) rather than refusing to start.
     * @return the open transports; close to stop them.
     */
    static SideTransports open(final List<TransportProvider> plan, final ServerConfig config,
        final TransportConfig tc, final long poolBase, final long poolSize, final RequestThread requestThread,
        final boolean shmOptional)
    {
        final SideTransports side = new SideTransports();
        try
        {
            for (final TransportProvider provider : plan)
            {
                try
                {
                    side.openOne(provider, config, tc, poolBase, poolSize, requestThread);
                }
                catch (final RuntimeException ex)
                {
                    if (!shmOptional || !SHM.equals(provider.name()))
                    {
                        throw ex;
                    }
                    LOG.info("not serving shm after all (transport.serveShm=auto): {}", ex.getMessage());
                }
            }
            return side;
        }
        catch (final RuntimeException ex)
        {
            side.close();
            throw ex;
        }
    }

    /** Open one side transport: all of it, or nothing left open. */
    private void openOne(final TransportProvider provider, final ServerConfig config, final TransportConfig tc,
        final long poolBase, final long poolSize, final RequestThread requestThread)
    {
        final OpenedResources mine = new OpenedResources();
        try
        {
            openInto(mine, provider, config, tc, poolBase, poolSize, requestThread);
        }
        catch (final RuntimeException ex)
        {
            mine.closeAll();
            throw ex;
        }
        opened.push(mine::closeAll);
    }

    /** Open one side transport, pushing each resource onto {@code resources} as it is made. */
    private void openInto(final OpenedResources resources, final TransportProvider provider,
        final ServerConfig config, final TransportConfig tc, final long poolBase, final long poolSize,
        final RequestThread requestThread)
    {
        final Transport transport = provider.open(tc);
        resources.push(transport);
        final MemoryRegion region = transport.memoryDomain().register(poolBase, poolSize,
            EnumSet.of(MemoryAccess.REMOTE_READ));
        resources.push(region);
        final Worker worker = transport.createWorker("server-" + provider.name());
        resources.push(worker);
        final ErrorHandler errors = t -> LOG.error("{} worker error", provider.name(), t);
        WorkerProgress progress = requestThread.progress().host(worker, errors);
        final boolean hosted = progress != null;
        if (!hosted)
        {
            progress = Progress.start(worker, new Idle(provider.name()), "rdmakv-server-" + provider.name(), errors);
        }
        resources.push(progress);
        final int port = SHM.equals(provider.name()) ? config.shmPort() : config.tcpPort();
        final Listener listener = worker.listen(new InetSocketAddress(config.host(), port),
            hosted ? requestThread.handler() : requestThread.handOff());
        resources.push(listener);
        final boolean hostLocal = provider.capabilities().has(TransportCapability.HOST_LOCAL);
        served.add(new Served(provider.name(), region, listener, hostLocal, hosted));
        LOG.info("also serving {} on {} ({}; {})", provider.name(), listener.localAddress(), hostLocal ?
            "clients on this host and in its network namespace" : "clients without the main transport", hosted ?
            "progressed on the request thread itself" : "a progress thread of its own, handing requests over");
    }

    /** The side transports, in the order they were opened. */
    List<Served> served()
    {
        return served;
    }

    /**
     * The WELCOME address of one side transport: its advertised port (TCP: {@code advertised.tcpPort}; a host-local
     * one keeps its own port, which names a socket on this host, and carries the host identity).
     */
    static TransportAddress address(final Served s, final ServerConfig config)
    {
        final int bound = s.listener().localAddress().getPort();
        final int port = TCP.equals(s.name()) ? config.advertisedTcpPort(bound) : bound;
        return TransportAddress.served(s.name(), config.advertisedHost(), port, s.region().remoteKey().pack(),
            s.hostLocal() ? HostIdentity.current() : "");
    }

    /** Stop accepting new endpoints on every side transport. */
    void stopAccepting()
    {
        served.forEach(s -> s.listener().close());
    }

    @Override
    public void close()
    {
        opened.closeAll();
    }

    /** A side worker's progress thread runs the worker only: its events go to the request thread. */
    private record Idle(String name) implements Agent
    {
        @Override
        public int doWork()
        {
            return 0;
        }

        @Override
        public String roleName()
        {
            return "rdmakv-server-" + name;
        }
    }
}
