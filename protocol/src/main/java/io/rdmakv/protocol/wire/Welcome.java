package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.layout.PoolGeometry;

import java.util.Arrays;
import java.util.List;

/**
 * Server to client: everything the client needs to read the pool one-sided and to route keys.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  Control frame header (8 B, type WELCOME)    ...  0
 *  +---------------------------------------------------------------+
 *  |                  Node id (u32)                                |  8
 *  +---------------------------------------------------------------+
 *  |                  Max key length (u32)                         |  12
 *  +---------------------------------------------------------------+
 *  |                  Max value length (u32)                       |  16
 *  +---------------------------------------------------------------+
 *  |                  Reserved (u32)                               |  20
 *  +---------------------------------------------------------------+
 *  |                  Layout epoch (u64)                           |  24
 *  +---------------------------------------------------------------+
 *  |                  Pool header address (u64, server's space)    |  32
 *  +---------------------------------------------------------------+
 *  |                  Pool geometry (40 B, see PoolGeometry)      ...  40
 *  +---------------------------------------------------------------+
 *  |                  Session ticket (16 B, random, opaque)       ...  80
 *  +-------------------------------+-------------------------------+
 *  |  Remote key length (u16)      |  Packed remote key (opaque)  ...  96
 *  +-------------------------------+-------------------------------+
 *  |  Transport address count (u16)|  TransportAddress entries    ...
 *  +-------------------------------+-------------------------------+
 *  |  Cluster node count (u16)     |  ClusterNode entries         ...
 *  +-------------------------------+-------------------------------+
 *  |                  Cluster epoch (u64)                          |
 *  +-------------------------------+-------------------------------+
 *  |  Member count (u16)           |  MemberAddress entries       ...
 *  +-------------------------------+-------------------------------+
 * </pre>
 *
 * @param nodeId            the answering node.
 * @param geometry          the pool geometry (offsets relative to the pool header address).
 * @param remoteKey         the packed remote key of the pool (opaque here; 32 bytes today).
 * @param layoutEpoch       the pool header's epoch when the handshake was answered.
 * @param poolHeaderAddress the pool's first byte in the server's address space (what one-sided reads name).
 * @param transports        the server's transport addresses.
 * @param maxKeyLength      largest key the server accepts.
 * @param maxValueLength    largest value the server accepts.
 * @param clusterMap        every slot range with its primary, epoch and backups.
 * @param sessionTicket     {@link #SESSION_TICKET_LENGTH} random bytes, fresh for this handshake: the client presents
 *                          them in the ATTACH that must open every data endpoint ({@link AttachRequestFlyweight}).
 *                          The node accepts a ticket once, and only for a limited time after the WELCOME.
 * @param clusterEpoch      the epoch of the configuration the map comes from (0 for a static map); a client keeps
 *                          the map with the highest epoch it has seen.
 * @param members           every member of a replicated cluster with its control address, those that are primary of
 *                          no range too (empty for a static map: its nodes are the map's).
 */
public record Welcome(
    int nodeId,
    PoolGeometry geometry,
    byte[] remoteKey,
    long layoutEpoch,
    long poolHeaderAddress,
    List<TransportAddress> transports,
    int maxKeyLength,
    int maxValueLength,
    List<ClusterNode> clusterMap,
    byte[] sessionTicket,
    long clusterEpoch,
    List<MemberAddress> members) implements ControlFrame
{
    /** 128 bits: not guessable, and large enough that random tickets never collide. */
    public static final int SESSION_TICKET_LENGTH = 16;

    /** A WELCOME of a node with a static map (cluster epoch 0). */
    public Welcome(final int nodeId, final PoolGeometry geometry, final byte[] remoteKey, final long layoutEpoch,
        final long poolHeaderAddress, final List<TransportAddress> transports, final int maxKeyLength,
        final int maxValueLength, final List<ClusterNode> clusterMap, final byte[] sessionTicket)
    {
        this(nodeId, geometry, remoteKey, layoutEpoch, poolHeaderAddress, transports, maxKeyLength, maxValueLength,
            clusterMap, sessionTicket, 0);
    }

    /** A WELCOME without a member list (a static map, or tests of the map alone). */
    public Welcome(final int nodeId, final PoolGeometry geometry, final byte[] remoteKey, final long layoutEpoch,
        final long poolHeaderAddress, final List<TransportAddress> transports, final int maxKeyLength,
        final int maxValueLength, final List<ClusterNode> clusterMap, final byte[] sessionTicket,
        final long clusterEpoch)
    {
        this(nodeId, geometry, remoteKey, layoutEpoch, poolHeaderAddress, transports, maxKeyLength, maxValueLength,
            clusterMap, sessionTicket, clusterEpoch, List.of());
    }

    /**
     * @throws IllegalArgumentException when the ticket is not {@link #SESSION_TICKET_LENGTH} bytes.
     */
    public Welcome
    {
        if (sessionTicket.length != SESSION_TICKET_LENGTH)
        {
            throw new IllegalArgumentException(
                "session ticket of " + sessionTicket.length + " bytes, expected " + SESSION_TICKET_LENGTH);
        }
        sessionTicket = sessionTicket.clone();
        remoteKey = remoteKey.clone();
        transports = List.copyOf(transports);
        clusterMap = List.copyOf(clusterMap);
        members = List.copyOf(members);
        if (members.size() > 0xFFFF)
        {
            throw new IllegalArgumentException("more than 65535 members: " + members.size());
        }
    }

    @Override
    public int frameType()
    {
        return TYPE_WELCOME;
    }

    @Override
    public byte[] remoteKey()
    {
        return remoteKey.clone();
    }

    @Override
    public byte[] sessionTicket()
    {
        return sessionTicket.clone();
    }

    /** The node owning {@code hashSlot}, or {@code null} if the map has a gap there. */
    public ClusterNode ownerOf(final int hashSlot)
    {
        for (final ClusterNode node : clusterMap)
        {
            if (node.owns(hashSlot))
            {
                return node;
            }
        }
        return null;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof Welcome w && w.nodeId == nodeId && w.geometry.equals(geometry) &&
            Arrays.equals(w.remoteKey, remoteKey) && w.layoutEpoch == layoutEpoch &&
            w.poolHeaderAddress == poolHeaderAddress && w.transports.equals(transports) &&
            w.maxKeyLength == maxKeyLength && w.maxValueLength == maxValueLength && w.clusterMap.equals(clusterMap) &&
            Arrays.equals(w.sessionTicket, sessionTicket) && w.clusterEpoch == clusterEpoch && w.members.equals(members);
    }

    @Override
    public int hashCode()
    {
        return ((nodeId * 31 + geometry.hashCode()) * 31 + Arrays.hashCode(remoteKey)) * 31 +
            Long.hashCode(layoutEpoch) + clusterMap.hashCode();
    }

    @Override
    public String toString()
    {
        return "Welcome{node=" + nodeId + ", geometry=" + geometry + ", rkey=" + remoteKey.length + " bytes, epoch=" +
            layoutEpoch + ", poolHeader=0x" + Long.toHexString(poolHeaderAddress) + ", transports=" + transports +
            ", maxKey=" + maxKeyLength + ", maxValue=" + maxValueLength + ", clusterMap=" + clusterMap + ", clusterEpoch=" + clusterEpoch +
            ", members=" + members +
            ", ticket=" + sessionTicket.length + " bytes}"; // never print the ticket: it opens a data endpoint
    }
}
