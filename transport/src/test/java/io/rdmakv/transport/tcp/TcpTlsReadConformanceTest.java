package io.rdmakv.transport.tcp;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractReadConformanceTest;

/** The read conformance suite run over the TCP transport with TLS 1.3 on every connection. */
class TcpTlsReadConformanceTest extends AbstractReadConformanceTest
{
    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }

    @Override
    protected TransportConfig config()
    {
        return TcpTls.on(super.config());
    }
}
