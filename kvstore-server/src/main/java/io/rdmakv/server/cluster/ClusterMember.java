package io.rdmakv.server.cluster;

/**
 * A node of the cluster as the coordination group knows it: where clients and peers reach it.
 *
 * @param nodeId      unique, stable id.
 * @param host        the host clients and peers connect to (advertised, not necessarily bound).
 * @param controlPort the node's control-plane port (HELLO/WELCOME).
 * @param dataPort    the node's data port (requests, and replication from its primaries).
 */
public record ClusterMember(int nodeId, String host, int controlPort, int dataPort)
{
    public ClusterMember
    {
        if (nodeId < 0)
        {
            throw new IllegalArgumentException("node id " + nodeId + " < 0");
        }
        if (controlPort < 0 || controlPort > 0xFFFF || dataPort < 0 || dataPort > 0xFFFF)
        {
            throw new IllegalArgumentException("ports must be 0..65535: " + controlPort + ", " + dataPort);
        }
    }
}
