package io.rdmakv.transport.shm;

/**
 * A peer's registered region as this process maps it, read-only: where its bytes are here, and the generation the
 * peer's region table must still hold for a copy to count.
 */
record PeerRegion(int regionId, long token, long generation, long base, long length, SharedMapping mapping)
{
    /** True when {@code [address, address + bytes)} lies inside the registered range. */
    boolean covers(final long address, final long bytes)
    {
        return bytes >= 0 && address >= base && address - base <= length - bytes;
    }
}
