package io.rdmakv.transport;

import java.util.Map;

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
     * The transport's own counters, summed over its workers (closed ones included), by name: a snapshot for logs,
     * metrics and tests. Verbs has its fast path's (docs/transport.md, "Fast-path counters"); a transport without any
     * returns an empty map.
     */
    default Map<String, Number> counters()
    {
        return Map.of();
    }

    /**
     * Create a worker. Its progress must be driven by exactly one thread at a time, either a dedicated
     * {@link org.agrona.concurrent.AgentRunner} or the caller through {@link org.agrona.concurrent.AgentInvoker}.
     */
    Worker createWorker(String name);

    @Override
    void close();
}
