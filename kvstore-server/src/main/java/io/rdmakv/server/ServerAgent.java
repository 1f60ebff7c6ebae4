package io.rdmakv.server;

import io.rdmakv.server.handler.RequestHandler;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.transport.Worker;
import org.agrona.concurrent.Agent;

/**
 * The server's one request thread as an Agrona {@link Agent}: progresses the transport worker (which runs the
 * {@link RequestHandler} callbacks), drains durable-write completions, and returns expired extents to the allocator.
 * Being the only caller of all three, it is the single writer of the {@link PoolIndex}.
 */
final class ServerAgent implements Agent
{
    private static final long RECLAIM_INTERVAL_NANOS = 1_000_000L;

    private final Worker worker;
    private final RequestHandler handler;
    private final PoolIndex index;
    private long nextReclaimNanos;

    ServerAgent(final Worker worker, final RequestHandler handler, final PoolIndex index)
    {
        this.worker = worker;
        this.handler = handler;
        this.index = index;
    }

    @Override
    public int doWork() throws Exception
    {
        int work = worker.doWork();
        work += handler.doWork();
        final long now = System.nanoTime();
        if (now - nextReclaimNanos >= 0)
        {
            nextReclaimNanos = now + RECLAIM_INTERVAL_NANOS;
            work += index.reclaim(now);
        }
        return work;
    }

    @Override
    public void onClose()
    {
        // The worker is closed by KvServer after this thread has stopped, in shutdown order.
    }

    @Override
    public String roleName()
    {
        return "rdmakv-server";
    }
}
