package io.rdmakv.transport.tcp;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractReadConformanceTest;

/** The read conformance suite run over the TCP transport. */
class TcpReadConformanceTest extends AbstractReadConformanceTest
{
    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }
}
