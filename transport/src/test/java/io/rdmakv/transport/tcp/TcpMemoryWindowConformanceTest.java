package io.rdmakv.transport.tcp;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractMemoryWindowConformanceTest;

/** tcp has no memory windows: it does not declare the capability and refuses the call (the window tests skip). */
class TcpMemoryWindowConformanceTest extends AbstractMemoryWindowConformanceTest
{
    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }
}
