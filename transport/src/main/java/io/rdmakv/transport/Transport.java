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
     * Endpoints one worker can hold at once on a transport with {@link TransportCapability#ENDPOINT_SLOTS}: what
     * {@link TransportConfig#endpointSlots()} or the transport's own setting asked for, else its default.
     *
     * @return the slots per worker; 0 when the transport does not bound them.
     */
    default int endpointSlots()
    {
        return 0;
    }

    /**
     * Create a worker. Its progress must be driven by exactly one thread at a time, either a dedicated
     * {@link org.agrona.concurrent.AgentRunner} or the caller through {@link org.agrona.concurrent.AgentInvoker}.
     */
    Worker createWorker(String name);

    @Override
    void close();
}
