package io.rdmakv.client.internal;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.TransportStatus;
import org.agrona.DirectBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This client's data connection to one node: the node's WELCOME facts and the transport endpoint. Receives the
 * node's answers (progress thread) and notices when the connection is lost, so the next request reconnects.
 */
final class NodeSession implements EndpointHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(NodeSession.class);

    private final NodeInfo info;
    private final boolean oneSided;
    private final RpcProtocol rpc;
    private final ClientConductor conductor;
    private volatile Endpoint endpoint;
    private volatile boolean alive = true;
    private volatile boolean poolStale;

    NodeSession(final NodeInfo info, final boolean oneSided, final RpcProtocol rpc, final ClientConductor conductor)
    {
        this.info = info;
        this.oneSided = oneSided;
        this.rpc = rpc;
        this.conductor = conductor;
    }

    NodeInfo info()
    {
        return info;
    }

    Endpoint endpoint()
    {
        return endpoint;
    }

    void endpoint(final Endpoint endpoint)
    {
        this.endpoint = endpoint;
    }

    /** GETs to this node go one-sided (resolved get mode, and the pool has not been rebuilt since the handshake). */
    boolean oneSided()
    {
        return oneSided && !poolStale;
    }

    /** Usable for new requests: connected and not superseded. */
    boolean isAlive()
    {
        final Endpoint e = endpoint;
        return alive && e != null && e.isConnected();
    }

    /**
     * The pool header's epoch differs from the handshake's: the node rebuilt its pool. GETs go by RPC until a new
     * handshake (the next reconnect) brings the new geometry and key.
     */
    void markPoolStale()
    {
        if (!poolStale)
        {
            poolStale = true;
            alive = false;
            LOG.info("node {} rebuilt its pool (epoch changed); reconnecting for new pool facts", info.nodeId());
        }
    }

    void close()
    {
        alive = false;
        final Endpoint e = endpoint;
        if (e != null)
        {
            e.close();
        }
    }

    @Override
    public void onMessage(final Endpoint endpoint, final DirectBuffer buffer, final int offset, final int length)
    {
        rpc.onMessage(this, buffer, offset, length);
    }

    @Override
    public void onDisconnected(final Endpoint endpoint, final TransportStatus status, final String detail)
    {
        alive = false;
        LOG.info("connection to node {} at {} closed: {}{}", info.nodeId(), info.dataAddress(), status.description(),
            detail == null ? "" : " (" + detail + ")");
        conductor.onSessionLost(this, status.description() + (detail == null ? "" : ": " + detail));
    }
}
