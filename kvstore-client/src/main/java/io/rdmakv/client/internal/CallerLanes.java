package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.MessageDecoder;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.transport.Lane;
import io.rdmakv.transport.Worker;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One node's caller lanes ({@link Lane}, tcp): connections of their own that a synchronous caller borrows for one
 * request, writes its request to and reads its answer from itself, so the answer wakes it straight from the kernel
 * instead of waking the client's event loop, which then wakes the caller. At most {@code max}, opened on demand (each
 * with a control-plane handshake for a ticket of its own and an ATTACH, as the session's endpoint), kept until the
 * session closes; a lane whose connection fails is dropped, and a new one is opened on a later request.
 *
 * <p>A caller that finds no idle lane and no room to open one, or whose open failed within the last second, goes the
 * shared way (the session's endpoint); nothing waits for a lane. Lanes carry requests only: asynchronous calls, a
 * request re-sent after a redirect and one-sided GETs keep to the session's endpoint.
 */
final class CallerLanes implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(CallerLanes.class);
    private static final long REOPEN_AFTER_FAILURE_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** A lane with its own decoder and the handler that hands its answers to the RPC protocol. */
    static final class Handle
    {
        final Lane lane;
        final MessageDecoder decoder = new MessageDecoder();
        final Lane.MessageHandler answers;

        Handle(final Lane lane, final RpcProtocol rpc, final NodeSession session)
        {
            this.lane = lane;
            this.answers = (buffer, offset, length) -> rpc.onMessage(session, decoder, buffer, offset, length);
        }
    }

    /**
     * What opening a lane takes, the same for every node of a client.
     *
     * @param perNode        lanes per node at most.
     * @param worker         opens the lanes ({@code Worker.openLane}).
     * @param control        asks each node for a lane's ticket.
     * @param connectTimeout bounds a lane's handshake, connect and ATTACH.
     */
    record Settings(int perNode, Worker worker, ControlPlaneClient control, Hello hello, Duration connectTimeout,
        ClientCounters counters)
    {
    }

    private final NodeInfo info;
    private final Settings settings;
    private final RpcProtocol rpc;
    private final NodeSession session;
    /** Idle lanes; a borrowed lane's place is null until it is given back. */
    private final AtomicReferenceArray<Handle> idle;
    private final AtomicInteger open = new AtomicInteger();
    /** Every open lane, idle or borrowed: {@link #close} closes the borrowed ones under their callers too. */
    private final Set<Handle> opened = ConcurrentHashMap.newKeySet();
    private volatile long lastFailureNanos;
    /** Failed opens (only the first is logged at INFO); a benign race between openers may miss a count. */
    private int failures;
    private volatile boolean closed;

    /** Made by {@code session}'s constructor: its lanes answer into it. */
    CallerLanes(final Settings settings, final RpcProtocol rpc, final NodeSession session)
    {
        this.info = session.info();
        this.settings = settings;
        this.rpc = rpc;
        this.session = session;
        this.idle = new AtomicReferenceArray<>(settings.perNode());
        this.lastFailureNanos = System.nanoTime() - REOPEN_AFTER_FAILURE_NANOS;
    }

    /** An idle lane, a newly opened one, or null: then the caller goes the shared way. */
    Handle borrow()
    {
        if (closed)
        {
            return null;
        }
        for (int i = 0; i < settings.perNode(); i++)
        {
            final Handle h = idle.get(i);
            if (h != null && idle.compareAndSet(i, h, null))
            {
                return h;
            }
        }
        final int n = open.get();
        if (n >= settings.perNode() || System.nanoTime() - lastFailureNanos < REOPEN_AFTER_FAILURE_NANOS ||
            !open.compareAndSet(n, n + 1))
        {
            return null;
        }
        try
        {
            final Handle h = new Handle(connect(), rpc, session);
            settings.counters().increment(ClientCounter.LANES_OPENED);
            opened.add(h);
            if (closed)
            {
                h.lane.close(); // closed meanwhile: close() may have passed the set already
            }
            return h;
        }
        catch (final RuntimeException ex)
        {
            open.decrementAndGet();
            lastFailureNanos = System.nanoTime();
            if (failures++ == 0)
            {
                LOG.info("cannot open a caller lane to node {} at {} (requests take the shared connection; tried " +
                    "again a second later, failures then at DEBUG): {}", info.nodeId(), info.dataAddress(),
                    ex.getMessage());
            }
            else
            {
                LOG.debug("cannot open a caller lane to node {} at {}: {}", info.nodeId(), info.dataAddress(),
                    ex.getMessage());
            }
            return null;
        }
    }

    /** Give a borrowed lane back; a failed lane (or any, once closed) is closed and its place freed. */
    void giveBack(final Handle h)
    {
        if (!closed && !h.lane.isClosed())
        {
            for (int i = 0; i < settings.perNode(); i++)
            {
                if (idle.get(i) == null && idle.compareAndSet(i, null, h))
                {
                    if (closed)
                    {
                        break; // closed meanwhile: close() may have passed this place already
                    }
                    return;
                }
            }
        }
        h.lane.close();
        opened.remove(h);
        open.decrementAndGet();
    }

    @Override
    public void close()
    {
        closed = true;
        for (int i = 0; i < settings.perNode(); i++)
        {
            final Handle h = idle.getAndSet(i, null);
            if (h != null)
            {
                h.lane.close();
                opened.remove(h);
                open.decrementAndGet();
            }
        }
        // Borrowed lanes: their callers block in a read; closing the lane ends it (the caller then gives it back).
        for (final Handle h : opened)
        {
            h.lane.close();
        }
    }

    /** A ticket of its own from the node's control plane, the connection, and its ATTACH. */
    private Lane connect()
    {
        final Welcome welcome =
            settings.control().handshake(info.controlAddress(), settings.hello(), settings.connectTimeout());
        if (welcome.nodeId() != info.nodeId())
        {
            throw new IllegalStateException("the control address now answers as node " + welcome.nodeId());
        }
        final Lane lane = settings.worker().openLane(info.dataAddress(), settings.connectTimeout());
        try
        {
            final UnsafeBuffer message = new UnsafeBuffer(new byte[AttachRequestFlyweight.ENCODED_LENGTH]);
            final AttachRequestFlyweight attach = new AttachRequestFlyweight().wrap(message, 0, message.capacity())
                .header(MessageType.ATTACH_REQUEST, 0).ticket(welcome.sessionTicket());
            attach.flags(attach.flags() | MessageHeaderFlyweight.FLAG_LANE);
            lane.send(message, 0, message.capacity(), settings.connectTimeout().toNanos());
            final Status[] status = new Status[1];
            if (!lane.receive((buffer, offset, length) -> status[0] = attachStatus(buffer, offset, length),
                settings.connectTimeout().toNanos()))
            {
                throw new IllegalStateException("no answer to ATTACH within " + settings.connectTimeout());
            }
            if (status[0] != Status.OK)
            {
                throw new IllegalStateException("the node refused the lane's ATTACH: " +
                    (status[0] == null ? "malformed answer" : status[0].description()));
            }
            return lane;
        }
        catch (final RuntimeException ex)
        {
            lane.close();
            throw ex;
        }
    }

    private static Status attachStatus(final org.agrona.DirectBuffer buffer, final int offset, final int length)
    {
        try
        {
            final ResponseFlyweight response = new ResponseFlyweight().wrap(buffer, offset, length);
            response.validate();
            return response.status();
        }
        catch (final ProtocolException ex)
        {
            return null;
        }
    }
}
