package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractLifecycleConformanceTest;

/**
 * The lifecycle conformance suite run over verbs. Where verbs is unavailable (no HCA, no SoftRoCE) every test is
 * skipped with the probe's cause printed, so it is harmless on machines without RDMA.
 */
class VerbsLifecycleConformanceTest extends AbstractLifecycleConformanceTest
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
