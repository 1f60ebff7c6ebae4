package io.rdmakv.transport.shm;

import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;

import java.net.InetSocketAddress;

/** A listening shm socket ({@code @rdmakv-shm-PORT}); its worker accepts on it. */
final class ShmListener implements Listener
{
    private final ShmWorker worker;
    private final UnixSeqPacket socket;
    private final EndpointHandler handler;
    private final InetSocketAddress localAddress;
    private boolean closed;

    ShmListener(final ShmWorker worker, final UnixSeqPacket socket, final EndpointHandler handler,
        final InetSocketAddress localAddress)
    {
        this.worker = worker;
        this.socket = socket;
        this.handler = handler;
        this.localAddress = localAddress;
    }

    UnixSeqPacket socket()
    {
        return socket;
    }

    EndpointHandler handler()
    {
        return handler;
    }

    /** The bind host and the port whose name the listener took. */
    @Override
    public InetSocketAddress localAddress()
    {
        return localAddress;
    }

    @Override
    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            worker.removeListener(this);
        }
    }
}
