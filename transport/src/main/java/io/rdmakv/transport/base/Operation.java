package io.rdmakv.transport.base;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.TransportStatus;

/**
 * One send or read of an endpoint, pooled by its {@link OperationWindow} so the data path allocates no operation
 * objects. A transport extends it with what its wire needs (a frame, a payload copy, a read's destination).
 * Owned by whoever took it out of the window (in-flight table or pending queue) until the window completes it.
 */
public abstract class Operation
{
    long requestId;
    CompletionHandler handler;
    TransportStatus status;
    long deadlineNanos;
    /** Holds one of the window's credits until it is completed. */
    boolean credited;
    /** Acquired and not yet completed: completing it twice is refused. */
    boolean live;

    /** The id {@code send}/{@code read} returned for it. */
    public final long requestId()
    {
        return requestId;
    }

    /** Who waits for the completion; {@code null} when nobody does. */
    public final CompletionHandler handler()
    {
        return handler;
    }

    /** The status it completes with, once known. */
    public final TransportStatus status()
    {
        return status;
    }

    /** Set the status it completes with. */
    public final void status(final TransportStatus value)
    {
        status = value;
    }

    /** When it times out, on the window's clock. */
    public final long deadlineNanos()
    {
        return deadlineNanos;
    }

    /** True while it holds a credit. */
    public final boolean isCredited()
    {
        return credited;
    }

    /**
     * Release what the transport attached (a frame never written, references to the caller's buffers) before the
     * operation returns to the pool. Called under the window's lock, once per use.
     */
    protected abstract void clear();
}
