package io.rdmakv.client.internal;

import io.rdmakv.client.HostPort;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.transport.RemoteKey;

import java.net.InetSocketAddress;

/**
 * What a node told this client in its WELCOME, reduced to what the data path needs.
 *
 * @param nodeId         the node.
 * @param controlAddress where its control plane answered.
 * @param dataAddress    its data address for the transport this client uses.
 * @param geometry       where buckets and extents are in its pool.
 * @param remoteKey      the pool's unpacked remote key; null when the WELCOME carries none for this transport (the node
 *                       hands each data session its own window's key in the ATTACH answer instead).
 * @param poolBase       the pool's first byte in the node's address space: offsets of the geometry are added to it.
 * @param epoch          the pool header's epoch at handshake; a different epoch read later means the pool was rebuilt.
 * @param maxKeyLength   largest key the node accepts.
 * @param maxValueLength largest value the node accepts.
 */
record NodeInfo(
    int nodeId,
    HostPort controlAddress,
    InetSocketAddress dataAddress,
    PoolGeometry geometry,
    RemoteKey remoteKey,
    long poolBase,
    long epoch,
    int maxKeyLength,
    int maxValueLength)
{
}
