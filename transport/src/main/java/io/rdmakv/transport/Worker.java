package io.rdmakv.transport;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The progress engine (UCX's worker) as an Agrona {@link Agent}: {@link #doWork()} polls completions and runs
 * callbacks; run it on a dedicated {@link org.agrona.concurrent.AgentRunner} in production or through an
 * {@link org.agrona.concurrent.AgentInvoker} from the caller in deterministic tests.
 * Endpoints belong to the worker that created or accepted them.
 *
 * <p>A worker whose {@link #progressModel()} is {@link ProgressModel#EVENT_DRIVEN} can instead be driven by the
 * transport's own I/O thread ({@link #driveProgress}); {@link io.rdmakv.transport.progress.Progress#start} chooses for
 * the application.
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

    /**
     * Transports with {@link TransportCapability#CALLER_LANES} only: open a {@link Lane} to a listener, blocking the
     * caller until it is connected or {@code timeout} has passed. Any thread; the lane is not one of this worker's
     * endpoints and needs none of its progress.
     *
     * @throws TransportException when the connection cannot be made within {@code timeout}.
     * @throws UnsupportedOperationException when the transport offers no lanes.
     */
    default Lane openLane(final InetSocketAddress remoteAddress, final Duration timeout)
    {
        throw new UnsupportedOperationException(roleName() + " offers no caller lanes");
    }

    /** How this worker's progress may be driven; POLLED unless the transport has a wake-up source. */
    default ProgressModel progressModel()
    {
        return ProgressModel.POLLED;
    }

    /**
     * ARMABLE workers only: the wake-up source an idle progress thread blocks on ({@code ucp_worker_get_efd} /
     * {@code ucp_worker_arm} / {@code ucp_worker_signal}).
     *
     * @throws UnsupportedOperationException for a worker of another {@link ProgressModel}.
     */
    default WorkerWakeup wakeup()
    {
        throw new UnsupportedOperationException(roleName() + " has no wake-up source to arm");
    }

    /**
     * EVENT_DRIVEN workers only: make the transport's I/O thread this worker's progress thread from now on. Callbacks
     * then run inline where their events are read, and a duty cycle (this worker's timers, then {@code duty.doWork()})
     * runs at least every {@code timerInterval} and soon after {@link WorkerProgress#signal()}. Nobody may call
     * {@link #doWork()} any more. Call it before the first listen or connect.
     *
     * @throws UnsupportedOperationException for a POLLED worker.
     * @throws IllegalStateException when the worker already has endpoints or listeners, or is driven already.
     */
    default WorkerProgress driveProgress(final Agent duty, final Duration timerInterval, final ErrorHandler errors)
    {
        throw new UnsupportedOperationException(roleName() + " has no wake-up source: it must be polled");
    }

    /** This worker's share of {@link Transport#counters()}: a snapshot by name; empty when the transport has none. */
    default Map<String, Number> counters()
    {
        return Map.of();
    }

    /**
     * A facility of this worker's implementation that a component knowing that implementation's libraries may use
     * (as JDBC's {@code unwrap}), or null: the SPI names no implementation's types. The tcp worker answers a Netty
     * {@code ServerBootstrap} bound to its event loop (group and channel class set), so a listener of another protocol
     * can keep its connections on the thread that progresses this worker: the node's RESP port.
     *
     * @param type the facility's type.
     * @return the facility, or null when this worker has none of that type.
     */
    default <T> T unwrap(final Class<T> type)
    {
        return null;
    }

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
