package io.rdmakv.transport.tcp;

/**
 * The disconnect conformance suite over TCP with event-driven workers: callbacks run inline on each worker's event
 * loop (WorkerProgress), as the store's client and server run them.
 */
class TcpEventDrivenDisconnectConformanceTest extends TcpDisconnectConformanceTest
{
    @Override
    protected boolean progressByModel()
    {
        return true;
    }
}
