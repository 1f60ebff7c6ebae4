package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractReadConformanceTest;

/**
 * The read conformance suite run over verbs. Where verbs is unavailable (no HCA, no SoftRoCE) every test is
 * skipped with the probe's cause printed, so it is harmless on machines without RDMA.
 */
class VerbsReadConformanceTest extends AbstractReadConformanceTest
{
    @Override
    protected TransportProvider provider()
    {
        return new VerbsTransportProvider();
    }

    @Override
    protected TransportConfig config()
    {
        return VerbsTestConfig.adapt(super.config());
    }
}
