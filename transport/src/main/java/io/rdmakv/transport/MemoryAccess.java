package io.rdmakv.transport;

/**
 * Access rights of a registered region. There is deliberately no remote write: a peer can never change our memory.
 */
public enum MemoryAccess
{
    /** The local transport may write into the region (receive buffers, read destinations). */
    LOCAL_WRITE,
    /** Peers may read the region one-sided with its remote key. */
    REMOTE_READ
}
