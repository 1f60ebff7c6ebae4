package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.socket.DuplexChannel;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.base.AbstractEndpoint;
import io.rdmakv.transport.base.EndpointLifecycle;
import io.rdmakv.transport.base.OperationWindow;
import io.rdmakv.transport.log.RateLimitedLog;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP connection to one peer over the shared {@link AbstractEndpoint} (its life, argument checks, the operation
 * window with its credits, in-flight table and pending queue): matches what arrives (written sends, read answers,
 * messages) to operations, and runs the connection's life on its {@link TcpWorker}'s progress. Operations may start
 * on any thread; {@link TcpOperationTable} posts them to the wire.
 *
 * <p>Writes are coalesced by {@link TcpOutbound}: a posted frame joins its queue and a batch leaves in one write task
 * on the event loop, with one flush and one promise.
 *
 * <p>Completions and received messages go to the owning {@link TcpWorker}'s progress: queued (completion queue,
 * {@link TcpInboundQueue}) and drained by {@code doWork()} on a polled worker, or delivered inline on the event loop
 * when the worker is event-driven. Delivering a completion returns its credit and promotes pending operations.
 */
final class TcpEndpoint extends AbstractEndpoint<TcpOperation>
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpEndpoint.class);
    /** The peer decides how often this happens. */
    private static final RateLimitedLog BAD_READ_RESPONSES = RateLimitedLog.of(LOG);
    /** The longest a locally closed endpoint waits for the peer to close its side (see {@link #close()}). */
    static final long LINGER_MILLIS = 1_000;

    private volatile boolean lingering;
    /** The application sent something here: a close must not let an RST discard it (see {@link #close()}). */
    private volatile boolean sentAny;
    private static final int MESSAGES_PER_PROGRESS = 1024;

    private final TcpWorker worker;
    private final TcpTransport transport;
    private final Channel channel;
    private volatile String downDetail;
    /** The peer sent a frame this end refused (malformed or oversized): the disconnect is a TRANSPORT_ERROR. */
    private volatile boolean protocolError;
    /** Frames posted (any thread) and frames received (event loop): their difference is what is still unanswered. */
    private final AtomicLong framesOut = new AtomicLong();
    private volatile long framesIn;

    private final ManyToOneConcurrentArrayQueue<TcpOperation> completions;
    private final TcpInboundQueue inbound;
    private final TcpOutbound outbound;
    private final TcpOperationTable operations;

    /**
     * @param directWriteGapNanos callers may write their frames to the socket themselves when the last direct write
     *                            ended at least this long ago ({@link TcpOutbound}; a connecting endpoint on epoll with
     *                            {@code tcp.directWrites} on), negative: never.
     */
    TcpEndpoint(final TcpWorker worker, final Channel channel, final EndpointHandler handler,
        final long directWriteGapNanos)
    {
        super(newWindow(worker.tcpTransport().config()), handler, RemoteKey.TRANSPORT_TCP, worker);
        this.worker = worker;
        this.transport = worker.tcpTransport();
        this.channel = channel;
        final int maxInflight = transport.config().maxInflightPerEndpoint();
        this.completions = new ManyToOneConcurrentArrayQueue<>(Math.max(maxInflight, 2));
        this.inbound = new TcpInboundQueue(channel);
        this.outbound = new TcpOutbound(channel, this::onWritten, this::onAnonymousWritten, directWriteGapNanos,
            transport.directWritesWhenBusy() ? () -> true : this::answeredAll);
        this.operations = new TcpOperationTable(window, lifecycle, outbound, channel.alloc());
    }

    private static OperationWindow<TcpOperation> newWindow(final TransportConfig config)
    {
        return new OperationWindow<>(TcpOperation::new, config.maxInflightPerEndpoint(),
            config.maxPendingPerEndpoint(), config.operationTimeout().toNanos(), SystemNanoClock.INSTANCE);
    }

    TcpWorker tcpWorker()
    {
        return worker;
    }

    Channel channel()
    {
        return channel;
    }

    // ---------------------------------------------------------------- operations (any thread)

    @Override
    protected int maxSendBytes()
    {
        return transport.config().maxMessageBytes();
    }

    @Override
    protected int maxReadBytes()
    {
        return transport.maxReadBytes();
    }

    @Override
    protected TransportStatus readRefusal()
    {
        return transport.emulatedReadEnabled() ? null : TransportStatus.ACCESS_DENIED;
    }

    @Override
    protected long doPostSend(final DirectBuffer buffer, final int offset, final int length,
        final CompletionHandler handler)
    {
        if (!sentAny)
        {
            sentAny = true;
        }
        framesOut.incrementAndGet();
        return operations.postSend(buffer, offset, length, handler);
    }

    @Override
    protected long doPostRead(
        final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
    {
        framesOut.incrementAndGet();
        return operations.postRead(remoteAddress, remoteKey, length, destination, destinationOffset, handler);
    }

    /**
     * True when every frame posted before the one being posted now has had a frame back (a request-response caller
     * with nothing else in flight): only then does a caller write directly, unless {@code tcp.directWritesWhenBusy}.
     */
    private boolean answeredAll()
    {
        return framesOut.get() - framesIn <= 1;
    }

    // ---------------------------------------------------------------- I/O thread callbacks

    void markActive()
    {
        markConnected();
    }

    /** Event loop: {@code count} sends nobody waits for were written (or failed): return their credits. */
    private void onAnonymousWritten(final int count)
    {
        operations.onAnonymousWritten(count);
    }

    private void onWritten(final long id, final boolean success)
    {
        final TcpOperation op = operations.takeWritten(id, success);
        if (op != null)
        {
            publish(op);
        }
    }

    /** A READ_RESPONSE frame; its {@code dataLength} data bytes are at {@code dataIndex} of {@code buf}. */
    void onReadResponse(final long correlationId, final int statusCode, final ByteBuf buf, final int dataIndex,
        final int dataLength)
    {
        framesIn++; // event loop only
        final TcpOperation op = operations.take(correlationId);
        if (op == null)
        {
            return; // timed out or failed already; the late answer is dropped
        }
        TransportStatus status = TransportStatus.fromCode(statusCode);
        if (status == TransportStatus.OK)
        {
            if (dataLength != op.length)
            {
                BAD_READ_RESPONSES.warn("emulated read response from {} carries {} bytes, expected {}", remoteAddress(),
                    dataLength, op.length);
                status = TransportStatus.TRANSPORT_ERROR;
            }
            else
            {
                TcpCopy.copyOut(buf, dataIndex, op.destination, op.destinationOffset, op.length);
            }
        }
        op.status(status);
        publish(op);
    }

    private void publish(final TcpOperation op)
    {
        if (worker.isDriven())
        {
            operations.complete(op);
            operations.promotePending();
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
        framesIn++; // event loop only
        if (worker.isDriven())
        {
            if (!lifecycle.isClosing()) // else failed or closed already: nothing more is delivered
            {
                inbound.deliverNow(buf, index, length, this, handler);
            }
            return;
        }
        inbound.offer(buf.retainedSlice(index, length));
    }

    /**
     * The channel is gone: refuse new operations (CLOSED when closed here, TRANSPORT_ERROR after a frame this end
     * refused, else PEER_FAILED) and let the worker fail what is outstanding.
     */
    void onInactive(final String detail)
    {
        outbound.closeDirect();
        if (detail != null && downDetail == null)
        {
            downDetail = detail;
        }
        beginClose(lifecycle.isCloseRequested() ? TransportStatus.CLOSED :
            protocolError ? TransportStatus.TRANSPORT_ERROR : TransportStatus.PEER_FAILED,
            downDetail == null ? "connection closed" : downDetail);
        inbound.releaseOverflow();
        worker.execute(this::onDownOnWorker);
    }

    /** The peer sent what this end cannot decode; reported as {@link TransportStatus#TRANSPORT_ERROR}, as on shm. */
    void recordProtocolError(final String detail)
    {
        protocolError = true;
        recordFailure(detail);
    }

    void recordFailure(final String detail)
    {
        if (downDetail == null)
        {
            downDetail = detail;
        }
    }

    // ---------------------------------------------------------------- worker thread

    /** After {@link #onInactive}: what arrived is delivered, what is outstanding fails (a no-op once done). */
    private void onDownOnWorker()
    {
        drainInbound(Integer.MAX_VALUE);
        operations.failAll(lifecycle.closeStatus());
        if (worker.isDriven())
        {
            progress(); // delivers onDisconnected now that nothing is outstanding
        }
    }

    /**
     * One progress step; returns the work done. Once the endpoint is going down, everything that arrived is
     * delivered first (all of it arrived before the close began), then, with nothing outstanding, onDisconnected.
     */
    int progress()
    {
        final boolean closing = lifecycle.isClosing();
        int work = 0;
        TcpOperation op;
        while ((op = completions.poll()) != null)
        {
            operations.complete(op);
            work++;
        }
        work += drainInbound(closing ? Integer.MAX_VALUE : MESSAGES_PER_PROGRESS);
        if (work > 0)
        {
            operations.promotePending();
        }
        if (closing && lifecycle.state() == EndpointLifecycle.State.CLOSING && outstanding() == 0 && finishClose())
        {
            work++;
        }
        return work;
    }

    /** The worker forgets the endpoint just before its onDisconnected. */
    @Override
    protected void doTeardown()
    {
        worker.removeEndpoint(this);
    }

    private int drainInbound(final int limit)
    {
        return inbound.drain(limit, this, handler);
    }

    /** Complete operations past their deadline with TIMED_OUT. */
    int expire(final long nowNanos)
    {
        return operations.expire(nowNanos);
    }

    /** Batches callers wrote to the socket themselves ({@link TcpOutbound}). */
    long directWriteBatches()
    {
        return outbound.directBatches();
    }

    /** Direct writes the socket cut short, their rest left to the event loop ({@link TcpOutbound}). */
    long directWritesCutShort()
    {
        return outbound.directWritesCutShort();
    }

    /** Worker close: fail everything now on the closing thread and release queued messages. */
    void closeNow()
    {
        requestClose();
        beginClose(TransportStatus.CLOSED, "worker closed");
        outbound.closeDirect();
        final ChannelFuture closing = channel.close();
        if (!channel.eventLoop().inEventLoop())
        {
            closing.awaitUninterruptibly(2000);
        }
        TcpOperation op;
        while ((op = completions.poll()) != null)
        {
            op.status(TransportStatus.CLOSED);
            operations.complete(op);
        }
        operations.failAll(TransportStatus.CLOSED);
        inbound.releaseQueued();
        finishClose();
    }

    // ---------------------------------------------------------------- Endpoint

    @Override
    public InetSocketAddress remoteAddress()
    {
        return (InetSocketAddress)channel.remoteAddress();
    }

    @Override
    public void close()
    {
        if (!requestClose())
        {
            return;
        }
        recordFailure("closed locally");
        if (channel.eventLoop().inEventLoop())
        {
            // Frames posted before the close leave first (e.g. the answer that explains a refusal): from another
            // thread the close task queues behind the write task anyway; here the close would run at once.
            outbound.writeNow();
        }
        lingering = true;
        if (sentAny && channel instanceof DuplexChannel duplex && channel.isActive())
        {
            // A lingering close: FIN after the queued frames, then keep reading (and dropping) until the peer closes
            // too (an end of input closes the channel) or LINGER_MILLIS pass. Closing at once with requests of the
            // peer still unread (a pipelining client refused at its first message) would send RST instead of FIN,
            // and an RST may discard the answer that explains the close from the peer's receive buffer.
            duplex.shutdownOutput().addListener(done ->
                channel.eventLoop().schedule(() -> channel.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS));
        }
        else
        {
            // Nothing of ours to protect (e.g. an idle connection shed by the server): close at once, so a flood of
            // such closes does not hold thousands of descriptors and endpoints for LINGER_MILLIS each.
            channel.close();
        }
    }

    /** Closed locally, waiting for the peer's end of input: whatever still arrives is read and dropped. */
    boolean isLingering()
    {
        return lingering;
    }

    @Override
    public String toString()
    {
        return "TcpEndpoint{" + channel.localAddress() + " -> " + channel.remoteAddress() + '}';
    }
}
