package io.rdmakv.transport.shm;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractReadConformanceTest;
import org.agrona.concurrent.UnsafeBuffer;

/** The read conformance suite run over the shm transport (regions in shared memory files). */
class ShmReadConformanceTest extends AbstractReadConformanceTest
{
    @Override
    protected TransportProvider provider()
    {
        return new ShmTransportProvider();
    }

    @Override
    protected UnsafeBuffer registrableMemory(final int size)
    {
        final SharedMapping memory = closeLater(SharedMapping.create("rdmakv-test-region", size));
        return new UnsafeBuffer(memory.address(), size);
    }
}
