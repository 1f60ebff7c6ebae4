package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;

/**
 * A TCP connection to one peer. Operations may start on any thread: a short per-endpoint lock guards the credit
 * count, the in-flight table (correlation id to operation), the bounded pending queue and the outbound queue.
 *
 * <p>Writes are coalesced by {@link TcpOutbound}: a posted frame joins its queue and a batch leaves in one write task
 * on the event loop, with one flush and one promise.
 *
 * <p>Completions and received messages go to the owning {@link TcpWorker}'s progress: queued (completion queue,
 * {@link TcpInboundQueue}) and drained by {@code doWork()} on a polled worker, or delivered inline on the event loop
 * when the worker is event-driven. Delivering a completion returns its credit and promotes pending operations.
 */
final class TcpEndpoint implements Endpoint
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpEndpoint.class);
    private static final int MESSAGES_PER_PROGRESS = 1024;

    private enum State
    {
        CONNECTING, CONNECTED, DOWN
    }

    private final TcpWorker worker;
    private final TcpTransport transport;
    private final Channel channel;
    private final EndpointHandler handler;
    private final int maxInflight;
    private final int maxPending;
    private final long timeoutNanos;

    private final Object lock = new Object();
    private final Long2ObjectHashMap<TcpOperation> inflight = new Long2ObjectHashMap<>();
    private final ArrayDeque<TcpOperation> pending = new ArrayDeque<>();
    private final ArrayDeque<TcpOperation> free = new ArrayDeque<>();
    private int inflightCount;
    private long nextRequestId;
    private State state = State.CONNECTING;
    private boolean closedLocally;
    private volatile String downDetail;

    private final ManyToOneConcurrentArrayQueue<TcpOperation> completions;
    private final TcpInboundQueue inbound;

    private final TcpOutbound outbound;

    /** Worker-thread state. */
    private final ArrayList<TcpOperation> expired = new ArrayList<>();
    private boolean disconnectSeen;
    private boolean disconnectDelivered;
    private TransportStatus disconnectStatus;

    TcpEndpoint(final TcpWorker worker, final Channel channel, final EndpointHandler handler)
    {
        this.worker = worker;
        this.transport = worker.tcpTransport();
        this.channel = channel;
        this.handler = handler;
        this.maxInflight = transport.config().maxInflightPerEndpoint();
        this.maxPending = transport.config().maxPendingPerEndpoint();
        this.timeoutNanos = transport.config().operationTimeout().toNanos();
        this.completions = new ManyToOneConcurrentArrayQueue<>(Math.max(maxInflight, 2));
        this.inbound = new TcpInboundQueue(channel);
        this.outbound = new TcpOutbound(channel, this::onWritten, this::onAnonymousWritten);
    }

    TcpWorker tcpWorker()
    {
        return worker;
    }

    EndpointHandler handler()
    {
        return handler;
    }

    Channel channel()
    {
        return channel;
    }

    // ---------------------------------------------------------------- operations (any thread)

    @Override
    public long send(final DirectBuffer buffer, final int offset, final int length, final CompletionHandler handler)
    {
        if (buffer == null || offset < 0 || length < 0 || offset > buffer.capacity() - length)
        {
            return TransportStatus.OUT_OF_BOUNDS.sentinel();
        }
        if (length > transport.config().maxMessageBytes())
        {
            return TransportStatus.MESSAGE_TOO_LARGE.sentinel();
        }
        if (!isConnected())
        {
            return refusedStatus().sentinel();
        }
        final ByteBuf frame = TcpFrames.messageFrame(channel.alloc(), length);
        TcpCopy.append(buffer, offset, frame, length);
        final long id;
        final boolean schedule;
        synchronized (lock)
        {
            final long result = admit();
            if (result < 0)
            {
                frame.release();
                return result;
            }
            final TcpOperation op = acquire(handler);
            op.isSend = true;
            op.frame = frame;
            id = op.requestId;
            schedule = submit(op);
        }
        if (schedule)
        {
            outbound.schedule();
        }
        return id;
    }

    @Override
    public long read(
        final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
    {
        if (!transport.emulatedReadEnabled())
        {
            return TransportStatus.ACCESS_DENIED.sentinel();
        }
        if (remoteKey == null || remoteKey.transportId() != RemoteKey.TRANSPORT_TCP)
        {
            return TransportStatus.INVALID_RKEY.sentinel();
        }
        if (length > transport.maxReadBytes())
        {
            return TransportStatus.MESSAGE_TOO_LARGE.sentinel();
        }
        if (length < 0 || destination == null || destinationOffset < 0 ||
            destinationOffset > destination.capacity() - length)
        {
            return TransportStatus.OUT_OF_BOUNDS.sentinel();
        }
        final long id;
        final boolean schedule;
        synchronized (lock)
        {
            final long result = admit();
            if (result < 0)
            {
                return result;
            }
            final TcpOperation op = acquire(handler);
            op.isSend = false;
            op.destination = destination;
            op.destinationOffset = destinationOffset;
            op.length = length;
            op.frame = TcpFrames.readRequestFrame(channel.alloc(), op.requestId, remoteKey.nativeKey(), length,
                remoteKey.token(), remoteAddress);
            id = op.requestId;
            schedule = submit(op);
        }
        if (schedule)
        {
            outbound.schedule();
        }
        return id;
    }

    /** Under lock: 0 when a new operation may be accepted, else a negative sentinel. */
    private long admit()
    {
        if (state != State.CONNECTED)
        {
            return refusedStatus().sentinel();
        }
        if (inflightCount >= maxInflight && pending.size() >= maxPending)
        {
            return TransportStatus.BACK_PRESSURED.sentinel();
        }
        return 0;
    }

    private TcpOperation acquire(final CompletionHandler handler)
    {
        TcpOperation op = free.pollFirst();
        if (op == null)
        {
            op = new TcpOperation();
        }
        op.requestId = nextRequestId++;
        op.handler = handler;
        op.deadlineNanos = System.nanoTime() + timeoutNanos;
        return op;
    }

    /** Under lock: post now or queue as pending; true when the caller must schedule the write task. */
    private boolean submit(final TcpOperation op)
    {
        if (inflightCount < maxInflight && pending.isEmpty())
        {
            return post(op);
        }
        pending.addLast(op);
        return false;
    }

    /**
     * Under lock: take a credit and queue the frame for the write task; true when this post starts a batch (the
     * caller schedules the task once the lock is released).
     */
    private boolean post(final TcpOperation op)
    {
        inflightCount++;
        final ByteBuf frame = op.frame;
        op.frame = null;
        if (op.isSend && op.handler == null)
        {
            // Nobody waits for this send: only its credit is tracked, by count, until its batch is written.
            op.reset();
            free.addLast(op);
            return outbound.add(frame, TcpOutbound.ANONYMOUS_SEND);
        }
        op.counted = true;
        inflight.put(op.requestId, op);
        // A send completes locally once written; a read completes with its response.
        return outbound.add(frame, op.isSend ? op.requestId : TcpOutbound.NOT_A_SEND);
    }

    // ---------------------------------------------------------------- I/O thread callbacks

    void markActive()
    {
        synchronized (lock)
        {
            if (state == State.CONNECTING)
            {
                state = State.CONNECTED;
            }
        }
    }

    /** Event loop: {@code count} sends nobody waits for were written (or failed): return their credits. */
    private void onAnonymousWritten(final int count)
    {
        synchronized (lock)
        {
            inflightCount -= count;
        }
        promotePending();
    }

    private void onWritten(final long id, final boolean success)
    {
        final TcpOperation op;
        final boolean local;
        synchronized (lock)
        {
            op = inflight.remove(id);
            local = closedLocally;
        }
        if (op != null)
        {
            op.status = success ? TransportStatus.OK : local ? TransportStatus.CLOSED : TransportStatus.PEER_FAILED;
            publish(op);
        }
    }

    /** A READ_RESPONSE frame; its {@code dataLength} data bytes are at {@code dataIndex} of {@code buf}. */
    void onReadResponse(final long correlationId, final int statusCode, final ByteBuf buf, final int dataIndex,
        final int dataLength)
    {
        final TcpOperation op;
        synchronized (lock)
        {
            op = inflight.remove(correlationId);
        }
        if (op == null)
        {
            return; // timed out or failed already; the late answer is dropped
        }
        TransportStatus status = TransportStatus.fromCode(statusCode);
        if (status == TransportStatus.OK)
        {
            if (dataLength != op.length)
            {
                LOG.warn("emulated read response from {} carries {} bytes, expected {}", remoteAddress(),
                    dataLength, op.length);
                status = TransportStatus.TRANSPORT_ERROR;
            }
            else
            {
                TcpCopy.copyOut(buf, dataIndex, op.destination, op.destinationOffset, op.length);
            }
        }
        op.status = status;
        publish(op);
    }

    private void publish(final TcpOperation op)
    {
        if (worker.isDriven())
        {
            deliver(op);
            promotePending();
            return;
        }
        // Cannot fail: at most maxInflight operations hold credits and a credit returns only after delivery.
        if (!completions.offer(op))
        {
            LOG.error("completion queue of {} overflowed; this is a bug", this);
        }
    }

        /**
     * A MESSAGE frame's payload of {@code length} bytes at {@code index} of {@code buf}, valid during this call: an
     * event-driven worker delivers it in place; a polled worker's queue gets a retained slice.
     */
    void onMessage(final ByteBuf buf, final int index, final int length)
    {
        if (worker.isDriven())
        {
            if (!disconnectSeen) // else failed or closed already: nothing more is delivered
            {
                inbound.deliverNow(buf, index, length, this, handler);
            }
            return;
        }
        inbound.offer(buf.retainedSlice(index, length));
    }

    /** The channel is gone: refuse new operations and let the worker fail what is outstanding. */
    void onInactive(final String detail)
    {
        synchronized (lock)
        {
            state = State.DOWN;
        }
        if (detail != null && downDetail == null)
        {
            downDetail = detail;
        }
        inbound.releaseOverflow();
        worker.execute(this::onDownOnWorker);
    }

    void recordFailure(final String detail)
    {
        if (downDetail == null)
        {
            downDetail = detail;
        }
    }

    // ---------------------------------------------------------------- worker thread

    private void onDownOnWorker()
    {
        if (disconnectSeen)
        {
            return;
        }
        disconnectSeen = true;
        final boolean local;
        synchronized (lock)
        {
            local = closedLocally;
        }
        disconnectStatus = local ? TransportStatus.CLOSED : TransportStatus.PEER_FAILED;
        drainInbound(Integer.MAX_VALUE);
        failAll(disconnectStatus);
        if (worker.isDriven())
        {
            progress(); // delivers onDisconnected now that nothing is outstanding
        }
    }

    /** Complete every in-flight and pending operation with {@code status} (worker thread or closing thread). */
    void failAll(final TransportStatus status)
    {
        expired.clear();
        synchronized (lock)
        {
            inflight.values().forEach(expired::add);
            inflight.clear();
            expired.addAll(pending);
            pending.clear();
        }
        final int dropped = outbound.releaseQueued();
        if (dropped > 0)
        {
            synchronized (lock)
            {
                inflightCount -= dropped; // never written: their credits come back here
            }
        }
        for (int i = 0; i < expired.size(); i++)
        {
            final TcpOperation op = expired.get(i);
            op.status = status;
            deliver(op);
        }
        expired.clear();
    }

    /** One progress step; returns the work done. */
    int progress()
    {
        int work = 0;
        TcpOperation op;
        while ((op = completions.poll()) != null)
        {
            deliver(op);
            work++;
        }
        work += drainInbound(MESSAGES_PER_PROGRESS);
        if (work > 0)
        {
            promotePending();
        }
        if (disconnectSeen && !disconnectDelivered && outstanding() == 0)
        {
            disconnectDelivered = true;
            worker.removeEndpoint(this);
            final String detail = downDetail == null ? "connection closed" : downDetail;
            try
            {
                handler.onDisconnected(this, disconnectStatus, detail);
            }
            catch (final Throwable t)
            {
                LOG.error("onDisconnected handler threw", t);
            }
            work++;
        }
        return work;
    }

    private int drainInbound(final int limit)
    {
        return inbound.drain(limit, this, handler);
    }

    private void promotePending()
    {
        boolean schedule = false;
        synchronized (lock)
        {
            while (state == State.CONNECTED && inflightCount < maxInflight && !pending.isEmpty())
            {
                schedule |= post(pending.pollFirst());
            }
        }
        if (schedule)
        {
            outbound.schedule();
        }
    }

    /** Complete operations past their deadline with TIMED_OUT. */
    int expire(final long nowNanos)
    {
        expired.clear();
        synchronized (lock)
        {
            if (inflight.isEmpty() && pending.isEmpty())
            {
                return 0;
            }
            final Iterator<TcpOperation> it = inflight.values().iterator();
            while (it.hasNext())
            {
                final TcpOperation op = it.next();
                if (op.deadlineNanos - nowNanos <= 0)
                {
                    it.remove();
                    expired.add(op);
                }
            }
            final Iterator<TcpOperation> pit = pending.iterator();
            while (pit.hasNext())
            {
                final TcpOperation op = pit.next();
                if (op.deadlineNanos - nowNanos <= 0)
                {
                    pit.remove();
                    expired.add(op);
                }
            }
        }
        final int count = expired.size();
        for (int i = 0; i < count; i++)
        {
            final TcpOperation op = expired.get(i);
            op.status = TransportStatus.TIMED_OUT;
            deliver(op);
        }
        expired.clear();
        if (count > 0)
        {
            promotePending();
        }
        return count;
    }

    private void deliver(final TcpOperation op)
    {
        final CompletionHandler h = op.handler;
        final TransportStatus status = op.status;
        final long id = op.requestId;
        synchronized (lock)
        {
            if (op.counted)
            {
                inflightCount--;
            }
            if (op.frame != null)
            {
                op.frame.release();
            }
            op.reset();
            free.addLast(op);
        }
        if (h != null)
        {
            try
            {
                h.onComplete(status, id);
            }
            catch (final Throwable t)
            {
                LOG.error("completion handler threw", t);
            }
        }
    }

    /** Worker close: fail everything now on the closing thread and release queued messages. */
    void closeNow()
    {
        synchronized (lock)
        {
            closedLocally = true;
            state = State.DOWN;
        }
        final ChannelFuture closing = channel.close();
        if (!channel.eventLoop().inEventLoop())
        {
            closing.awaitUninterruptibly(2000);
        }
        disconnectSeen = true;
        disconnectStatus = TransportStatus.CLOSED;
        TcpOperation op;
        while ((op = completions.poll()) != null)
        {
            op.status = TransportStatus.CLOSED;
            deliver(op);
        }
        failAll(TransportStatus.CLOSED);
        inbound.releaseQueued();
        if (!disconnectDelivered)
        {
            disconnectDelivered = true;
            try
            {
                handler.onDisconnected(this, TransportStatus.CLOSED, "worker closed");
            }
            catch (final Throwable t)
            {
                LOG.error("onDisconnected handler threw", t);
            }
        }
    }

    private TransportStatus refusedStatus()
    {
        synchronized (lock)
        {
            return closedLocally ? TransportStatus.CLOSED : TransportStatus.NOT_CONNECTED;
        }
    }

    // ---------------------------------------------------------------- Endpoint

    @Override
    public boolean isConnected()
    {
        synchronized (lock)
        {
            return state == State.CONNECTED;
        }
    }

    @Override
    public InetSocketAddress remoteAddress()
    {
        return (InetSocketAddress)channel.remoteAddress();
    }

    @Override
    public int outstanding()
    {
        synchronized (lock)
        {
            return inflightCount + pending.size();
        }
    }

    @Override
    public Worker worker()
    {
        return worker;
    }

    @Override
    public void close()
    {
        synchronized (lock)
        {
            if (closedLocally)
            {
                return;
            }
            closedLocally = true;
        }
        recordFailure("closed locally");
        if (channel.eventLoop().inEventLoop())
        {
            // Frames posted before the close leave first (e.g. the answer that explains a refusal): from another
            // thread the close task queues behind the write task anyway; here the close would run at once.
            outbound.writeNow();
        }
        channel.close();
    }

    @Override
    public String toString()
    {
        return "TcpEndpoint{" + channel.localAddress() + " -> " + channel.remoteAddress() + '}';
    }
}
