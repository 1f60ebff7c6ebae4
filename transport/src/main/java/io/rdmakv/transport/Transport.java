package io.rdmakv.transport;

/**
 * An opened transport: the memory domain plus a factory of workers. Closing it closes every worker and
 * endpoint and deregisters every region it registered.
 */
public interface Transport extends AutoCloseable
{
    String name();

    TransportCapabilities capabilities();

    MemoryDomain memoryDomain();

    /**
     * Create a worker. Its progress must be driven by exactly one thread at a time, either a dedicated
     * {@link org.agrona.concurrent.AgentRunner} or the caller through {@link org.agrona.concurrent.AgentInvoker}.
     */
    Worker createWorker(String name);

    @Override
    void close();
}
