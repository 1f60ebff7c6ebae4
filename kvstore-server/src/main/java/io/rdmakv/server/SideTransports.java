package io.rdmakv.server;

import io.rdmakv.protocol.wire.TransportAddress;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.handler.HandOff;
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
import org.agrona.concurrent.Agent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * The transports a node serves beside its main one, as UCX serves several: TCP always (so a client without the main
 * transport is still served), shm with {@code transport.serveShm} (clients on this host). Each registers the same pool
 * with its own memory domain (its own remote key, in its WELCOME address), has its own worker, progress thread and
 * listener, and hands its endpoints' events to the request thread ({@link HandOff}), which stays the pool index's
 * single writer. Replication and the node's own connections use the main transport only.
 */
final class SideTransports implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(SideTransports.class);
    private static final String TCP = "tcp";
    private static final String SHM = "shm";

    /** One side transport, open and listening. */
    record Served(String name, MemoryRegion region, Listener listener, boolean hostLocal)
    {
    }

    private final List<Served> served = new ArrayList<>();
    private final OpenedResources opened = new OpenedResources();

    private SideTransports()
    {
    }

    /**
     * Which transports to serve beside {@code main}: TCP unless it is the main one, shm when asked for; one that is
     * unusable here is logged with its cause and left out (the main transport still serves).
     *
     * @param config   the node's settings.
     * @param main     the main transport.
     * @param selector the transports on the class path.
     * @return the providers, TCP first.
     */
    static List<TransportProvider> plan(final ServerConfig config, final TransportProvider main,
        final TransportSelector selector)
    {
        final List<TransportProvider> plan = new ArrayList<>();
        final List<String> wanted = new ArrayList<>(List.of(TCP));
        if (config.serveShm())
        {
            wanted.add(SHM);
        }
        for (final String name : wanted)
        {
            if (name.equals(main.name()))
            {
                continue;
            }
            try
            {
                plan.add(selector.evaluate(name).provider());
            }
            catch (final TransportException ex)
            {
                LOG.warn("not serving {} beside {}: {}", name, main.name(), ex.getMessage());
            }
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
     * @param plan      from {@link #plan}.
     * @param config    the node's settings (bind host, ports).
     * @param tc        the transport settings the main transport was opened with.
     * @param poolBase  the pool's first byte.
     * @param poolSize  its length.
     * @param handOff   where the listeners' endpoint events go.
     * @return the open transports; close to stop them.
     */
    static SideTransports open(final List<TransportProvider> plan, final ServerConfig config,
        final TransportConfig tc, final long poolBase, final long poolSize, final HandOff handOff)
    {
        final SideTransports side = new SideTransports();
        try
        {
            for (final TransportProvider provider : plan)
            {
                side.openOne(provider, config, tc, poolBase, poolSize, handOff);
            }
            return side;
        }
        catch (final RuntimeException ex)
        {
            side.close();
            throw ex;
        }
    }

    private void openOne(final TransportProvider provider, final ServerConfig config, final TransportConfig tc,
        final long poolBase, final long poolSize, final HandOff handOff)
    {
        final Transport transport = provider.open(tc);
        opened.push(transport);
        final MemoryRegion region = transport.memoryDomain().register(poolBase, poolSize,
            EnumSet.of(MemoryAccess.REMOTE_READ));
        opened.push(region);
        final Worker worker = transport.createWorker("server-" + provider.name());
        opened.push(worker);
        final WorkerProgress progress = Progress.start(worker, new Idle(provider.name()),
            "rdmakv-server-" + provider.name(), t -> LOG.error("{} worker error", provider.name(), t));
        opened.push(progress);
        final int port = SHM.equals(provider.name()) ? config.shmPort() : config.tcpPort();
        final Listener listener = worker.listen(new InetSocketAddress(config.host(), port), handOff);
        opened.push(listener);
        final boolean hostLocal = provider.capabilities().has(TransportCapability.HOST_LOCAL);
        served.add(new Served(provider.name(), region, listener, hostLocal));
        LOG.info("also serving {} on {} ({})", provider.name(), listener.localAddress(), hostLocal ?
            "clients on this host and in its network namespace" : "clients without the main transport");
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
