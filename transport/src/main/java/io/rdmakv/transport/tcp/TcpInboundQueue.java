package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Received messages of one endpoint on their way from the channel's I/O thread (the single producer) to the worker
 * (the single consumer). The queue is bounded; when the worker falls behind, the I/O thread parks further frames in
 * an overflow list it alone touches and stops reading the socket, so TCP flow control pushes back on the sender.
 * The worker, once it has drained, asks the I/O thread to move the overflow across and to read again.
 */
final class TcpInboundQueue
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpInboundQueue.class);
    private static final int CAPACITY = 4096;

    private final Channel channel;
    private final OneToOneConcurrentArrayQueue<ByteBuf> queue = new OneToOneConcurrentArrayQueue<>(CAPACITY);
    /** I/O thread only. */
    private final ArrayDeque<ByteBuf> overflow = new ArrayDeque<>();
    private final AtomicBoolean resumeScheduled = new AtomicBoolean();
    private final Runnable resumeTask = this::resume;
    private volatile boolean paused;

    /** Progress thread only (the worker's event loop when it is event-driven). */
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private byte[] scratch = new byte[0];

    TcpInboundQueue(final Channel channel)
    {
        this.channel = channel;
    }

    /** I/O thread: take ownership of a MESSAGE frame positioned at its payload. */
    void offer(final ByteBuf frame)
    {
        if (!overflow.isEmpty() || !queue.offer(frame))
        {
            overflow.addLast(frame);
            if (!paused)
            {
                paused = true;
                channel.config().setAutoRead(false);
            }
        }
    }

    /** I/O thread: the channel is gone; frames not yet handed over are dropped. */
    void releaseOverflow()
    {
        ByteBuf buf;
        while ((buf = overflow.pollFirst()) != null)
        {
            buf.release();
        }
    }

    private void resume()
    {
        resumeScheduled.set(false);
        ByteBuf buf;
        while ((buf = overflow.peekFirst()) != null && queue.offer(buf))
        {
            overflow.pollFirst();
        }
        if (overflow.isEmpty() && paused)
        {
            paused = false;
            channel.config().setAutoRead(true);
        }
    }

    /** Worker thread: deliver up to {@code limit} messages to {@code handler}; returns how many. */
    int drain(final int limit, final Endpoint endpoint, final EndpointHandler handler)
    {
        int count = 0;
        ByteBuf buf;
        while (count < limit && (buf = queue.poll()) != null)
        {
            count++;
            try
            {
                deliver(buf, buf.readerIndex(), buf.readableBytes(), endpoint, handler);
            }
            finally
            {
                buf.release();
            }
        }
        if (paused && resumeScheduled.compareAndSet(false, true))
        {
            channel.eventLoop().execute(resumeTask);
        }
        return count;
    }

    /** Event-driven worker, on the event loop: deliver {@code length} bytes at {@code index} of {@code buf} now. */
    void deliverNow(final ByteBuf buf, final int index, final int length, final Endpoint endpoint,
        final EndpointHandler handler)
    {
        deliver(buf, index, length, endpoint, handler);
    }

    private void deliver(final ByteBuf buf, final int index, final int length, final Endpoint endpoint,
        final EndpointHandler handler)
    {
        try
        {
            if (buf.hasMemoryAddress())
            {
                view.wrap(buf.memoryAddress() + index, length);
            }
            else
            {
                if (scratch.length < length)
                {
                    scratch = new byte[length];
                }
                buf.getBytes(index, scratch, 0, length);
                view.wrap(scratch, 0, length);
            }
            handler.onMessage(endpoint, view, 0, length);
        }
        catch (final Throwable t)
        {
            LOG.error("onMessage handler threw; the message is dropped", t);
        }
    }

    /** Worker close: drop what was not delivered. */
    void releaseQueued()
    {
        ByteBuf buf;
        while ((buf = queue.poll()) != null)
        {
            buf.release();
        }
    }
}
