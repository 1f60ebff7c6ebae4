package io.rdmakv.server.cluster;

/**
 * A node of the cluster as the coordination group knows it: where clients and peers reach it.
 *
 * @param nodeId      unique, stable id.
 * @param host        the host clients and peers connect to (advertised, not necessarily bound).
 * @param controlPort the node's control-plane port (HELLO/WELCOME).
 * @param dataPort    the node's data port (requests, and replication from its primaries).
 * @param respPort    the node's RESP port (Redis clients; {@code CLUSTER SLOTS} and {@code -MOVED} name it), 0 = none.
 */
public record ClusterMember(int nodeId, String host, int controlPort, int dataPort, int respPort)
{
    /** A member without a RESP port. */
    public ClusterMember(final int nodeId, final String host, final int controlPort, final int dataPort)
    {
        this(nodeId, host, controlPort, dataPort, 0);
    }

    public ClusterMember
    {
        if (nodeId < 0)
        {
            throw new IllegalArgumentException("node id " + nodeId + " < 0");
        }
        if (controlPort < 0 || controlPort > 0xFFFF || dataPort < 0 || dataPort > 0xFFFF || respPort < 0 ||
            respPort > 0xFFFF)
        {
            throw new IllegalArgumentException("ports must be 0..65535: " + controlPort + ", " + dataPort + ", " +
                respPort);
        }
    }
}
