package io.rdmakv.transport.tcp;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractDisconnectConformanceTest;

/** The disconnect conformance suite run over the TCP transport on Netty's io_uring ({@code tcp.ioUring=true}). */
class TcpIoUringDisconnectConformanceTest extends AbstractDisconnectConformanceTest
{
    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }

    @Override
    protected TransportConfig config()
    {
        return TcpIoUring.on(super.config());
    }
}
