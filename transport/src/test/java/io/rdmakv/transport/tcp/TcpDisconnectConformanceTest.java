package io.rdmakv.transport.tcp;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractDisconnectConformanceTest;

/** The disconnect conformance suite (onDisconnected exactly once) run over the TCP transport. */
class TcpDisconnectConformanceTest extends AbstractDisconnectConformanceTest
{
    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }
}
