package io.rdmakv.transport.tcp;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractLifecycleConformanceTest;

/** The lifecycle conformance suite run over the TCP transport. */
class TcpLifecycleConformanceTest extends AbstractLifecycleConformanceTest
{
    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }
}
