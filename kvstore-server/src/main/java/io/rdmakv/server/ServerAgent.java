package io.rdmakv.server;

import io.rdmakv.server.handler.HandOff;
import io.rdmakv.server.handler.RequestHandler;
import io.rdmakv.server.pool.PoolIndex;
import org.agrona.concurrent.Agent;

/**
 * The server's duty agent, run by {@link io.rdmakv.transport.WorkerProgress} on the transport worker's progress
 * thread (the request thread): drains durable-write completions and returns expired extents to the allocator. The
 * worker's callbacks (the {@link RequestHandler}) run on that same thread, so it is the single writer of the
 * {@link PoolIndex}. On tcp that thread is the worker's Netty event loop; on verbs, a thread of its own that polls
 * while busy and sleeps on the worker's completion channel when idle (so reclaim may run up to
 * verbs.idleMaxWaitMs late on an idle server: freed extents return to the allocator that much later). The events of
 * the transports served beside the main one on threads of their own reach the handler here too ({@link HandOff}), on
 * the same thread; a side worker the main progress hosts (shm beside tcp) calls the handler on this thread directly.
 */
final class ServerAgent implements Agent
{
    private static final long RECLAIM_INTERVAL_NANOS = 1_000_000L;

    private final RequestHandler handler;
    private final PoolIndex index;
    private final HandOff handOff;
    private long nextReclaimNanos;

    /** @param handOff events of the transports served beside the main one, or null when there are none. */
    ServerAgent(final RequestHandler handler, final PoolIndex index, final HandOff handOff)
    {
        this.handler = handler;
        this.index = index;
        this.handOff = handOff;
    }

    @Override
    public int doWork() throws Exception
    {
        int work = handOff == null ? 0 : handOff.drain();
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
        // The worker was closed by the WorkerProgress that ran this agent, before this call.
        handler.close();
    }

    @Override
    public String roleName()
    {
        return "rdmakv-server";
    }
}
