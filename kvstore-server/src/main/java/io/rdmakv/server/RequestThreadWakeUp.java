package io.rdmakv.server;

import io.rdmakv.transport.WorkerProgress;

/**
 * Wakes the node's request thread. The write paths and the hand-off need it before that thread exists (the thread
 * runs the handler they are part of), so the node makes this first, hands it to them as a plain {@link Runnable},
 * and binds it once to the thread it starts. A wake-up before then is dropped: the thread's first duty cycle runs
 * anyway.
 */
final class RequestThreadWakeUp implements Runnable
{
    private volatile WorkerProgress progress;

    /** The request thread, once started; bound exactly once. */
    void bindTo(final WorkerProgress requestThread)
    {
        if (progress != null)
        {
            throw new IllegalStateException("the request thread is bound already");
        }
        progress = requestThread;
    }

    @Override
    public void run()
    {
        final WorkerProgress p = progress;
        if (p != null)
        {
            p.signal();
        }
    }
}
