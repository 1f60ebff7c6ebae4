package io.rdmakv.transport.tcp;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractReadConformanceTest;

/**
 * The read conformance suite over TCP with event-driven workers: callbacks run inline on each worker's event loop
 * (WorkerProgress), as the store's client and server run them.
 */
class TcpEventDrivenReadConformanceTest extends AbstractReadConformanceTest
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
