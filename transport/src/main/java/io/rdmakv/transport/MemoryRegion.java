package io.rdmakv.transport;

/** A registered range; {@link #remoteKey()} is what a peer needs to read it. Closing deregisters it. */
public interface MemoryRegion extends AutoCloseable
{
    long address();

    long length();

    /** The remote key of this region; only meaningful when registered with {@link MemoryAccess#REMOTE_READ}. */
    RemoteKey remoteKey();

    @Override
    void close();
}
