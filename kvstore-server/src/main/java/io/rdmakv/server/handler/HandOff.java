package io.rdmakv.server.handler;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.TransportStatus;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The endpoint handler of the transports a node serves beside its main one on a progress thread of their own (TCP
 * beside verbs or shm, shm beside verbs; shm beside tcp needs none: the tcp event loop hosts its worker and runs its
 * callbacks itself). Those threads are not the request thread, and the {@link RequestHandler} must stay the single
 * writer of the pool index on the request thread. So each event is queued here (a message copied, since its buffer is only valid
 * during the call) and the request thread replays it in order ({@link #drain}, from the server's duty agent): the
 * handler sees every transport's endpoints on one thread, and answers go out through each endpoint's own worker
 * (posts are allowed from any thread). One-sided reads never pass here.
 *
 * <pre>
 *   extra worker's thread: onConnected / onMessage (copy) / onDisconnected ─► bounded queue ─► wake the request thread
 *   request thread (duty cycle): drain ─► RequestHandler.onConnected / onMessage / onDisconnected
 * </pre>
 * A full queue makes the extra worker's thread wait (yielding, the request thread woken), so a flood on a side
 * transport is slowed where it is read, never buffered without bound.
 */
public final class HandOff implements EndpointHandler
{
    /** Events waiting at most: far more than credits x connections keep in flight at once. */
    static final int CAPACITY = 16_384;
    private static final int MAX_PER_DRAIN = 256;

    private final EndpointHandler target;
    private final ManyToOneConcurrentArrayQueue<Event> queue = new ManyToOneConcurrentArrayQueue<>(CAPACITY);
    private final Runnable wakeUp;

    /**
     * @param target the handler the request thread runs.
     * @param wakeUp wakes the request thread when events wait (its {@code WorkerProgress.signal}): called after every
     *               queued event; cheap when the thread is awake.
     */
    public HandOff(final EndpointHandler target, final Runnable wakeUp)
    {
        this.target = target;
        this.wakeUp = wakeUp;
    }

    @Override
    public void onConnected(final Endpoint endpoint)
    {
        offer(new Event(endpoint, null, null, null));
    }

    @Override
    public void onMessage(final Endpoint endpoint, final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] copy = new byte[length];
        buffer.getBytes(offset, copy);
        offer(new Event(endpoint, copy, null, null));
    }

    @Override
    public void onDisconnected(final Endpoint endpoint, final TransportStatus status, final String detail)
    {
        offer(new Event(endpoint, null, status, detail));
    }

    /**
     * Replay waiting events on the calling thread (the request thread only).
     *
     * @return events replayed.
     */
    public int drain()
    {
        int work = 0;
        Event e;
        while (work < MAX_PER_DRAIN && (e = queue.poll()) != null)
        {
            work++;
            if (e.message != null)
            {
                target.onMessage(e.endpoint, new UnsafeBuffer(e.message), 0, e.message.length);
            }
            else if (e.status != null)
            {
                target.onDisconnected(e.endpoint, e.status, e.detail);
            }
            else
            {
                target.onConnected(e.endpoint);
            }
        }
        if (work == MAX_PER_DRAIN && !queue.isEmpty())
        {
            wakeUp.run(); // more next cycle, without waiting for the next event
        }
        return work;
    }

    private void offer(final Event event)
    {
        while (!queue.offer(event))
        {
            wakeUp.run();
            Thread.yield();
        }
        wakeUp.run();
    }

    /** A message (message set), a disconnect (status set) or a connect (neither). */
    private record Event(Endpoint endpoint, byte[] message, TransportStatus status, String detail)
    {
    }
}
