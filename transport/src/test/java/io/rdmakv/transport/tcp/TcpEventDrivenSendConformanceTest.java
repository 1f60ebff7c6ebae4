package io.rdmakv.transport.tcp;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractSendConformanceTest;

/**
 * The send conformance suite over TCP with event-driven workers: callbacks run inline on each worker's event loop
 * (WorkerProgress), as the store's client and server run them.
 */
class TcpEventDrivenSendConformanceTest extends AbstractSendConformanceTest
{
    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }

    @Override
    protected boolean progressByModel()
    {
        return true;
    }
}
