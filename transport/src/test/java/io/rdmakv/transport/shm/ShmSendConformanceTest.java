package io.rdmakv.transport.shm;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractSendConformanceTest;
import org.agrona.concurrent.UnsafeBuffer;

/** The send conformance suite run over the shm transport (regions in shared memory files). */
class ShmSendConformanceTest extends AbstractSendConformanceTest
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
