package io.rdmakv.transport.shm;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.conformance.AbstractMemoryWindowConformanceTest;
import org.agrona.concurrent.UnsafeBuffer;

/** shm has no memory windows: it does not declare the capability and refuses the call (the window tests skip). */
class ShmMemoryWindowConformanceTest extends AbstractMemoryWindowConformanceTest
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
