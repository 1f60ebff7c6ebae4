package io.rdmakv.transport;

import java.util.Set;

/**
 * Registers address ranges with the transport (for verbs: {@code ibv_reg_mr}; for tcp: a table of regions with a
 * secret token per region). Registration is slow and pins memory: do it once, at start-up, never on the data path.
 */
public interface MemoryDomain
{
    /**
     * Register {@code length} bytes at native {@code address}. The memory must stay mapped until the region is closed.
     *
     * @throws TransportException if registration fails (e.g. memlock limit on verbs).
     */
    MemoryRegion register(long address, long length, Set<MemoryAccess> access);

    /** How many registrations this domain has performed since it was opened; a flat counter proves the data path never registers. */
    long registrationCount();
}
