package io.rdmakv.transport.shm;

import io.rdmakv.transport.MemoryDomain;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.base.TransportWorkers;

import java.util.List;

/** An opened shm transport: its memory domain (with the region table peers map) and its workers. */
final class ShmTransport implements Transport
{
    private final TransportConfig config;
    private final TransportCapabilities capabilities;
    private final ShmMemoryDomain domain = new ShmMemoryDomain();
    private final TransportWorkers<ShmWorker> workers = new TransportWorkers<>("shm");

    ShmTransport(final TransportConfig config)
    {
        this.config = config;
        this.capabilities = ShmTransportProvider.capabilitiesFor(config);
    }

    TransportConfig config()
    {
        return config;
    }

    ShmMemoryDomain domain()
    {
        return domain;
    }

    @Override
    public String name()
    {
        return ShmTransportProvider.NAME;
    }

    @Override
    public TransportCapabilities capabilities()
    {
        return capabilities;
    }

    @Override
    public MemoryDomain memoryDomain()
    {
        return domain;
    }

    @Override
    public Worker createWorker(final String name)
    {
        return workers.add(() -> new ShmWorker(this, name));
    }

    void forget(final ShmWorker worker)
    {
        workers.remove(worker);
    }

    @Override
    public void close()
    {
        final List<ShmWorker> open = workers.close();
        if (open == null)
        {
            return;
        }
        open.forEach(ShmWorker::close);
        domain.close();
    }
}
