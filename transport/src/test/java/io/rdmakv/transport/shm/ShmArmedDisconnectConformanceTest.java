package io.rdmakv.transport.shm;

/**
 * The disconnect conformance suite over shm with workers driven as applications drive them (WorkerProgress: the
 * armable worker blocks when idle and is woken by a peer's ring write, a socket or a signal).
 */
class ShmArmedDisconnectConformanceTest extends ShmDisconnectConformanceTest
{
    @Override
    protected boolean progressByModel()
    {
        return true;
    }
}
