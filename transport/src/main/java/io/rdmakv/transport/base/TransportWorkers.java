package io.rdmakv.transport.base;

import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The workers a transport created and has not seen closed, and whether the transport is closed: a worker is made
 * and added under one lock, so none is made on a closed transport, and a close hands the open workers over once.
 * Thread-safe.
 *
 * @param <W> the transport's worker.
 */
public final class TransportWorkers<W extends Worker>
{
    private final String transportName;
    private final List<W> open = new ArrayList<>();
    private boolean closed;

    /** @param transportName names the transport in the error a worker made after its close gets. */
    public TransportWorkers(final String transportName)
    {
        this.transportName = transportName;
    }

    /** Make a worker and keep it; CLOSED once the transport is closed. */
    public synchronized W add(final Supplier<W> factory)
    {
        if (closed)
        {
            throw new TransportException(TransportStatus.CLOSED, transportName + " transport is closed", null);
        }
        final W worker = factory.get();
        open.add(worker);
        return worker;
    }

    /** The worker closed; false when it was not kept (closed already). */
    public synchronized boolean remove(final W worker)
    {
        return open.remove(worker);
    }

    /** The workers open now. */
    public synchronized List<W> snapshot()
    {
        return new ArrayList<>(open);
    }

    /** The transport closes: the workers still open, for the caller to close; {@code null} when it closed already. */
    public synchronized List<W> close()
    {
        if (closed)
        {
            return null;
        }
        closed = true;
        return new ArrayList<>(open);
    }
}
