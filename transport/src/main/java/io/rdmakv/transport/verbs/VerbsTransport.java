package io.rdmakv.transport.verbs;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.rdmakv.transport.MemoryDomain;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.base.TransportWorkers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * An opened verbs transport: one device context and protection domain, the memory domain over it, one small Netty
 * event loop for the TCP control channels, and the workers.
 */
final class VerbsTransport implements Transport
{
    private static final Logger LOG = LoggerFactory.getLogger(VerbsTransport.class);

    private final VerbsConfig config;
    private final VerbsDevice device;
    private final VerbsMemoryDomain domain;
    private final TransportCapabilities capabilities;
    private final EventLoopGroup eventLoops;
    private final TransportWorkers<VerbsWorker> workers = new TransportWorkers<>("verbs");
    /** The counters of closed workers. Guarded by this. */
    private VerbsCounters closedWorkers = VerbsCounters.ZERO;

    VerbsTransport(final VerbsTransportProvider provider, final VerbsConfig config)
    {
        this.config = config;
        this.device = VerbsDevice.open(config);
        this.domain = new VerbsMemoryDomain(device);
        final TransportCapabilities base = provider.capabilities();
        final Set<TransportCapability> flags = EnumSet.copyOf(base.flags());
        if (device.supportsWindows())
        {
            flags.add(TransportCapability.MEMORY_WINDOWS); // per device, as UCX's iface flags
        }
        this.capabilities = new TransportCapabilities(flags, config.maxMessageBytes, base.maxReadBytes(),
            Math.min(config.sendDepth, device.maxQpWr), base.latencyNanos(), base.bandwidthBytesPerSecond());
        this.eventLoops = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("verbs-control", true),
            NioIoHandler.newFactory());
        LOG.info("verbs transport opened on {}", device);
    }

    VerbsMemoryDomain domain()
    {
        return domain;
    }

    EventLoopGroup eventLoops()
    {
        return eventLoops;
    }

    @Override
    public String name()
    {
        return VerbsTransportProvider.NAME;
    }

    @Override
    public TransportCapabilities capabilities()
    {
        return capabilities;
    }

    @Override
    public int endpointSlots()
    {
        return config.maxEndpoints;
    }

    @Override
    public MemoryDomain memoryDomain()
    {
        return domain;
    }

    @Override
    public Worker createWorker(final String name)
    {
        return workers.add(() -> new VerbsWorker(this, name, config, device));
    }

    synchronized void workerClosed(final VerbsWorker worker)
    {
        if (workers.remove(worker))
        {
            closedWorkers = closedWorkers.plus(worker.fastPath.snapshot());
        }
    }

    /** The fast path's counters of every worker this transport created, closed ones included. */
    VerbsCounters fastPathCounters()
    {
        final List<VerbsWorker> open;
        VerbsCounters total;
        synchronized (this)
        {
            open = workers.snapshot();
            total = closedWorkers;
        }
        for (final VerbsWorker worker : open)
        {
            total = total.plus(worker.fastPath.snapshot());
        }
        return total;
    }

    @Override
    public Map<String, Number> counters()
    {
        return fastPathCounters().toMap();
    }

    @Override
    public void close()
    {
        final List<VerbsWorker> toClose = workers.close();
        if (toClose == null)
        {
            return;
        }
        toClose.forEach(VerbsWorker::close);
        domain.close();
        eventLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        device.close();
    }
}
