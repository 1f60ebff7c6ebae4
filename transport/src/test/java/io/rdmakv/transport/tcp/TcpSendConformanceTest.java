package io.rdmakv.transport.tcp;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractSendConformanceTest;

/** The send conformance suite run over the TCP transport. */
class TcpSendConformanceTest extends AbstractSendConformanceTest
{
    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }
}
