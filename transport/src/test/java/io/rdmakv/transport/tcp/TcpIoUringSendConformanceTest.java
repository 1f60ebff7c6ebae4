package io.rdmakv.transport.tcp;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractSendConformanceTest;

/** The send conformance suite run over the TCP transport on Netty's io_uring ({@code tcp.ioUring=true}). */
class TcpIoUringSendConformanceTest extends AbstractSendConformanceTest
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
