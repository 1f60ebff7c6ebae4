package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractReadConformanceTest;

/**
 * The read conformance suite over verbs with workers driven as applications drive them
 * ({@link io.rdmakv.transport.WorkerProgress#start}): ARMABLE, so an idle worker sleeps on its completion channel
 * and eventfd (verbs.idle=events) and every completion, task and close must wake it. Skips where verbs is unavailable.
 */
class VerbsArmedReadConformanceTest extends AbstractReadConformanceTest
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

    @Override
    protected boolean progressByModel()
    {
        return true;
    }
}
