package io.rdmakv.transport;

/** Capability flags a transport declares; selection filters on them (as UCX's {@code UCT_IFACE_FLAG_*}). */
public enum TransportCapability
{
    /** Two-sided send/receive of messages. */
    SEND_RECV,
    /** One-sided read executed by the hardware: no CPU of the target is used. */
    READ_NATIVE,
    /** One-sided read emulated in software by the target's transport, below the application (like UCX rma_sw). */
    READ_EMULATED,
    /** Several reads can be posted with one doorbell (a linked list of work requests). */
    READ_BATCH,
    /**
     * A one-sided read can complete before the call returns ({@link Endpoint#readImmediate}), on the caller's thread
     * with no progress and no completion hand-off: the target's memory is mapped into this process (shm). UCX's
     * immediate completion of {@code ucp_get_nbx}.
     */
    READ_IMMEDIATE,
    /**
     * Reaches only peers on this host (shared memory): {@code auto} selection never picks it, a configuration must
     * name it.
     */
    HOST_LOCAL,
    /**
     * Registers only memory mapped shared from a memory file ({@code memfd}): what another process can map. A
     * server on such a transport maps its pool that way.
     */
    MEMORY_FILE_REGIONS,
    /**
     * A worker holds a bounded number of endpoints, each with buffers registered (pinned) when the worker is
     * created: size it with {@link TransportConfig#endpointSlots()}, read it back with
     * {@link Transport#endpointSlots()}. A connect beyond the slots is refused.
     */
    ENDPOINT_SLOTS,
    /**
     * A caller can open a {@link Lane} ({@link Worker#openLane}): a connection it sends on and receives from itself,
     * blocking, answered by the peer like any endpoint of this transport.
     */
    CALLER_LANES,
    /**
     * {@link Endpoint#bindWindow}: a remote key over part of a registered region that only the endpoint's peer can use,
     * over that connection only, and that the owner revokes at any time ({@link MemoryWindow#invalidate()}) without
     * touching the region or other peers' keys (verbs: a type 2 memory window bound on the endpoint's QP). Declared
     * only when the device supports it; tcp and shm never do.
     */
    MEMORY_WINDOWS
}
