package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractDisconnectConformanceTest;

/**
 * The disconnect conformance suite (onDisconnected exactly once) run over verbs. Where verbs is unavailable (no HCA,
 * no SoftRoCE) every test is skipped with the probe's cause printed.
 */
class VerbsDisconnectConformanceTest extends AbstractDisconnectConformanceTest
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
