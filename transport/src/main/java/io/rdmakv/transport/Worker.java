package io.rdmakv.transport;

import org.agrona.concurrent.Agent;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * The progress engine (UCX's worker) as an Agrona {@link Agent}: {@link #doWork()} polls completions and runs
 * callbacks; run it on a dedicated {@link org.agrona.concurrent.AgentRunner} in production or through an
 * {@link org.agrona.concurrent.AgentInvoker} from the caller in deterministic tests.
 * Endpoints belong to the worker that created or accepted them.
 */
public interface Worker extends Agent, AutoCloseable
{
    /**
     * Accept connections on {@code bindAddress} (port 0 picks a free port); accepted endpoints are announced to
     * {@code handler.onConnected} on the progress thread.
     */
    Listener listen(InetSocketAddress bindAddress, EndpointHandler handler);

    /**
     * Connect to a listener. The future completes (on the progress thread) when the endpoint is ready for
     * operations, or exceptionally with a {@link TransportException} naming the cause.
     */
    CompletableFuture<Endpoint> connect(InetSocketAddress remoteAddress, EndpointHandler handler);

    /** The transport that created this worker. */
    Transport transport();

    /** Close every endpoint and listener of this worker; pending operations complete with {@link TransportStatus#CLOSED}. */
    @Override
    void close();

    @Override
    default void onClose()
    {
        close();
    }
}
