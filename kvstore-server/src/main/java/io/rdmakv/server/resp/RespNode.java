package io.rdmakv.server.resp;

import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.transport.EndpointHandler;

/**
 * What the RESP listener needs of its node, and nothing more: a session ticket to attach each connection as a data
 * endpoint, the request thread's door (the node's {@code HandOff}: requests are replayed in order on the request
 * thread by the same {@code RequestHandler} the binary protocol reaches), and the figures INFO and DBSIZE report.
 */
public interface RespNode
{
    /** A fresh single-use session ticket, or null when too many are outstanding (the connection is refused). */
    byte[] issueTicket();

    /** The request thread's door: events given to it are handled on the request thread, in order. */
    EndpointHandler requestThread();

    /** This node's id. */
    int nodeId();

    /** Keys this node holds (the pool's count when it holds every key, else RocksDB's estimate). */
    long keyCount();

    /** Bytes of the pinned pool, for INFO memory. */
    long poolBytes();

    /** The node's counters as {@code name=value} lines (what the binary STATS answers). */
    String counters();

    /** Whether the node runs in a cluster (INFO's {@code redis_mode}, HELLO's {@code mode}). */
    boolean clustered();

    /** The newest cluster map this node knows (never null; no ranges before the first layout). */
    ClusterState clusterState();

    /**
     * The members the cluster declared failed (lease expired), as of {@link #clusterState()} or newer: CLUSTER NODES
     * and SHARDS show them {@code fail} / {@code disconnected}, as Redis shows a node it marked FAIL.
     */
    java.util.Set<Integer> failedNodes();

    /** The host clients are told ({@code advertised.host}). */
    String advertisedHost();

    /** This node's RESP port. */
    int respPort();
}
