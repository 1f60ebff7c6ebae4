package io.rdmakv.transport.shm;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractDisconnectConformanceTest;

/** The disconnect conformance suite (onDisconnected exactly once) run over the shm transport. */
class ShmDisconnectConformanceTest extends AbstractDisconnectConformanceTest
{
    @Override
    protected TransportProvider provider()
    {
        return new ShmTransportProvider();
    }
}
