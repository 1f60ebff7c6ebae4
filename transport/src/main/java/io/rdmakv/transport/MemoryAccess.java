package io.rdmakv.transport;

/**
 * Access rights of a registered region. There is deliberately no remote write: a peer can never change our memory.
 */
public enum MemoryAccess
{
    /** The local transport may write into the region (receive buffers, read destinations). */
    LOCAL_WRITE,
    /** Peers may read the region one-sided with its remote key. */
    REMOTE_READ,
    /**
     * Memory windows may be bound over the region ({@link Endpoint#bindWindow}, transports with
     * {@link TransportCapability#MEMORY_WINDOWS}; verbs: {@code IBV_ACCESS_MW_BIND}). The region's own key grants
     * nothing more for it; transports without windows ignore it.
     */
    BIND_WINDOWS
}
