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
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP connection to one peer. Operations may start on any thread: a short per-endpoint lock guards the credit
 * count, the in-flight table (correlation id to operation) and the bounded pending queue. Netty I/O threads complete
 * operations into a completion queue and hand received messages over an SPSC queue; both are drained by the owning
 * {@link TcpWorker}, which runs the callbacks and returns credits (then promotes pending operations).
 */
final class TcpEndpoint implements Endpoint
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpEndpoint.class);
    private static final int INBOUND_CAPACITY = 4096;
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
    private final OneToOneConcurrentArrayQueue<ByteBuf> inbound = new OneToOneConcurrentArrayQueue<>(INBOUND_CAPACITY);
    /** Messages the worker had no room for yet; touched by the channel's I/O thread only. */
    private final ArrayDeque<ByteBuf> overflow = new ArrayDeque<>();
    private final AtomicBoolean resumeScheduled = new AtomicBoolean();
    private volatile boolean readPaused;
    private final Runnable resumeTask = this::resumeReading;

    /** Worker-thread state. */
    private final UnsafeBuffer messageView = new UnsafeBuffer(0, 0);
    private byte[] scratch = new byte[0];
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
            return submit(op);
        }
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
            return submit(op);
        }
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

    private long submit(final TcpOperation op)
    {
        final long id = op.requestId;
        if (inflightCount < maxInflight && pending.isEmpty())
        {
            post(op, true);
        }
        else
        {
            pending.addLast(op);
        }
        return id;
    }

    /** Under lock: take a credit and hand the frame to Netty (which keeps write order and releases the frame). */
    private void post(final TcpOperation op, final boolean flush)
    {
        inflightCount++;
        op.counted = true;
        inflight.put(op.requestId, op);
        final ByteBuf frame = op.frame;
        op.frame = null;
        final long id = op.requestId;
        final boolean isSend = op.isSend;
        final ChannelFuture future = flush ? channel.writeAndFlush(frame) : channel.write(frame);
        future.addListener(f -> onWritten(id, isSend, f.isSuccess()));
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

    private void onWritten(final long id, final boolean isSend, final boolean success)
    {
        if (isSend || !success)
        {
            final TcpOperation op;
            synchronized (lock)
            {
                op = inflight.remove(id);
            }
            if (op != null)
            {
                op.status = success ? TransportStatus.OK : TransportStatus.PEER_FAILED;
                publish(op);
            }
        }
    }

    void onReadResponse(final long correlationId, final int statusCode, final ByteBuf data)
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
            if (data.readableBytes() != op.length)
            {
                LOG.warn("emulated read response from {} carries {} bytes, expected {}", remoteAddress(),
                    data.readableBytes(), op.length);
                status = TransportStatus.TRANSPORT_ERROR;
            }
            else
            {
                TcpCopy.copyOut(data, data.readerIndex(), op.destination, op.destinationOffset, op.length);
            }
        }
        op.status = status;
        publish(op);
    }

    private void publish(final TcpOperation op)
    {
        // Cannot fail: at most maxInflight operations hold credits and a credit returns only after delivery.
        if (!completions.offer(op))
        {
            LOG.error("completion queue of {} overflowed; this is a bug", this);
        }
    }

    /** A MESSAGE frame arrived; takes ownership of {@code frame} (positioned at the payload). */
    void onMessage(final ByteBuf frame)
    {
        if (!overflow.isEmpty() || !inbound.offer(frame))
        {
            overflow.addLast(frame);
            if (!readPaused)
            {
                // The worker is behind: stop reading the socket so TCP flow control pushes back on the sender.
                readPaused = true;
                channel.config().setAutoRead(false);
            }
        }
    }

    private void resumeReading()
    {
        resumeScheduled.set(false);
        ByteBuf buf;
        while ((buf = overflow.peekFirst()) != null && inbound.offer(buf))
        {
            overflow.pollFirst();
        }
        if (overflow.isEmpty() && readPaused)
        {
            readPaused = false;
            channel.config().setAutoRead(true);
        }
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
        ByteBuf buf;
        while ((buf = overflow.pollFirst()) != null)
        {
            buf.release();
        }
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
        int count = 0;
        ByteBuf buf;
        while (count < limit && (buf = inbound.poll()) != null)
        {
            count++;
            try
            {
                final int length = buf.readableBytes();
                if (buf.hasMemoryAddress())
                {
                    messageView.wrap(buf.memoryAddress() + buf.readerIndex(), length);
                }
                else
                {
                    if (scratch.length < length)
                    {
                        scratch = new byte[length];
                    }
                    buf.getBytes(buf.readerIndex(), scratch, 0, length);
                    messageView.wrap(scratch, 0, Math.max(length, 0));
                }
                handler.onMessage(this, messageView, 0, length);
            }
            catch (final Throwable t)
            {
                LOG.error("onMessage handler threw; the message is dropped", t);
            }
            finally
            {
                buf.release();
            }
        }
        if (readPaused && resumeScheduled.compareAndSet(false, true))
        {
            channel.eventLoop().execute(resumeTask);
        }
        return count;
    }

    private void promotePending()
    {
        synchronized (lock)
        {
            boolean wrote = false;
            while (state == State.CONNECTED && inflightCount < maxInflight && !pending.isEmpty())
            {
                post(pending.pollFirst(), false);
                wrote = true;
            }
            if (wrote)
            {
                channel.flush();
            }
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
        channel.close().awaitUninterruptibly(2000);
        disconnectSeen = true;
        disconnectStatus = TransportStatus.CLOSED;
        TcpOperation op;
        while ((op = completions.poll()) != null)
        {
            op.status = TransportStatus.CLOSED;
            deliver(op);
        }
        failAll(TransportStatus.CLOSED);
        ByteBuf buf;
        while ((buf = inbound.poll()) != null)
        {
            buf.release();
        }
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
        channel.close();
    }

    @Override
    public String toString()
    {
        return "TcpEndpoint{" + channel.localAddress() + " -> " + channel.remoteAddress() + '}';
    }
}
