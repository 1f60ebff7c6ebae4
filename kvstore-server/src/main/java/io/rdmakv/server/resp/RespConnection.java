package io.rdmakv.server.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.Status;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * One RESP connection on its event loop: commands in, replies out in the order the commands came (pipelining), each
 * key command answered when the node answered its requests ({@link RespEndpoint}). At most
 * {@link RespSettings#maxPendingReplies} replies wait: beyond, and while the socket is not writable, the connection
 * is not read. A broken frame is answered {@code -ERR Protocol error: ...} after the replies before it, then closed.
 */
final class RespConnection extends ChannelInboundHandlerAdapter implements RespEndpoint.Answers,
    StoreCommands.StoreCalls
{
    private static final Logger LOG = LoggerFactory.getLogger(RespConnection.class);
    private static final String MAX_CLIENTS = "ERR max number of clients reached";

    private final RespNode node;
    private final RespSettings settings;
    private final RespCommands commands;
    private final RespIntrospection stats;
    private final ArrayDeque<PendingReply> replies = new ArrayDeque<>();
    private final Long2ObjectHashMap<Part> waiting = new Long2ObjectHashMap<>();
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    /** Writes sent to the node and not answered yet. */
    private int writesInFlight;
    /**
     * The reply of a command of several steps ({@link PendingReply#steps}) whose steps are in progress, or null:
     * while it is not ready, nothing of the commands after it is sent (they are held).
     */
    private PendingReply chain;
    /** The reply of an AUTH (or HELLO ... AUTH) whose password check runs off the loop, or null. */
    private PendingReply verifying;
    /** Commands that came while {@link #verifying}: executed, in order, once its check ended. */
    private final ArrayDeque<byte[][]> deferred = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private RespSession session;
    private RespEndpoint endpoint;
    /** The reply after which the connection closes (QUIT's, a protocol error's), or null. */
    private PendingReply last;
    private boolean refused;

    RespConnection(final RespNode node, final RespSettings settings, final RespCommands commands,
        final RespIntrospection stats)
    {
        this.node = node;
        this.settings = settings;
        this.commands = commands;
        this.stats = stats;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
        stats.connected.incrementAndGet();
        stats.connectionsTotal.incrementAndGet();
        session = new RespSession(ctx.channel().remoteAddress(), ctx.channel().localAddress(),
            !settings.requiresAuth());
        final byte[] ticket = node.issueTicket();
        if (ticket == null)
        {
            refuse(MAX_CLIENTS);
            return;
        }
        endpoint = new RespEndpoint(ctx.channel(), node.requestThread(), this);
        endpoint.attach(ticket);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        stats.connected.decrementAndGet();
        if (endpoint != null)
        {
            endpoint.disconnected();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (last != null || refused)
        {
            return; // closing: nothing after QUIT or a broken frame is executed
        }
        endpoint.reading(true);
        final byte[][] args = (byte[][])msg; // RespDecoder: never empty
        if (verifying != null)
        {
            // An AUTH's password check is in progress: what comes after it runs as the session it leaves.
            deferred.add(args);
        }
        else
        {
            execute(args);
        }
        if (replies.size() + deferred.size() >= settings.maxPendingReplies())
        {
            ctx.channel().config().setAutoRead(false);
        }
    }

    private void execute(final byte[][] args)
    {
        stats.commandsTotal.incrementAndGet();
        final PendingReply reply = commands.execute(session, args, this);
        replies.add(reply);
        if (session.quitting)
        {
            last = reply;
        }
        if (reply.check() != null)
        {
            verifying = reply;
            final io.netty.channel.EventLoop loop = ctx.channel().eventLoop();
            reply.check().whenComplete((matched, failure) -> loop.execute(() ->
                checked(reply, failure == null && matched)));
        }
    }

    /** Event loop: the password check of {@code reply} ended; the commands held behind it run now, in order. */
    private void checked(final PendingReply reply, final boolean matched)
    {
        reply.checked(matched);
        verifying = null;
        if (!ctx.channel().isActive())
        {
            deferred.clear();
            return;
        }
        endpoint.reading(true);
        byte[][] next;
        while (verifying == null && last == null && !refused && (next = deferred.poll()) != null)
        {
            execute(next);
        }
        endpoint.reading(false);
        endpoint.deliverLocal();
        writeReady();
        resumeReading();
    }

    /** The end of a read: the answers the node gave meanwhile are taken in and the ready replies written, one flush. */
    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        if (endpoint != null)
        {
            endpoint.reading(false);
            endpoint.deliverLocal();
        }
        writeReady();
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx)
    {
        resumeReading();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        if (cause instanceof IOException)
        {
            ctx.close(); // the peer reset: nothing to answer
            return;
        }
        final Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (last != null || refused)
        {
            return;
        }
        final String why = String.valueOf(root.getMessage());
        LOG.debug("RESP protocol error from {}: {}", ctx.channel().remoteAddress(), why);
        ctx.channel().config().setAutoRead(false);
        last = PendingReply.ready(RespReply.error("ERR Protocol error: " + why));
        replies.add(last);
        writeReady();
    }

    /**
     * Request {@code index} of {@code reply} to the node, through the endpoint; a GET waits here while a write of this
     * connection is unanswered (and everything after it waits behind it). The node orders a connection's writes, but
     * answers a GET at once even when a write before it completes later (group commit, replication): to the native
     * protocol the two are concurrent, while Redis runs a connection's commands one after another.
     */
    @Override
    public void send(final PendingReply reply, final int index, final MessageType type, final byte[] key,
        final byte[] value)
    {
        submit(new Held(reply, index, type, key, value, null));
    }

    /** A RECORD_WRITE (conditional write, counter, expiry change, PUT with expiry; TTL is a read). */
    @Override
    public void record(final PendingReply reply, final int index, final int op, final long expectedVersion,
        final long argument, final byte[] key, final byte[] value)
    {
        submit(new Held(reply, index, MessageType.RECORD_WRITE_REQUEST, key, value,
            new RecordOp(op, expectedVersion, argument)));
    }

    /** An atomic BATCH_WRITE of {@code count} entries routed by {@code firstKey} (MSET in one hash slot). */
    @Override
    public void batch(final PendingReply reply, final int index, final byte[] firstKey, final byte[] entries,
        final int count)
    {
        submit(new Held(reply, index, MessageType.BATCH_WRITE_REQUEST, firstKey, entries, new RecordOp(0, 0, count)));
    }

    private void submit(final Held request)
    {
        if (request.reply == chain)
        {
            // The next step of the command in progress: nothing of the connection is in flight but its steps.
            dispatch(request);
            return;
        }
        if (chain != null || !held.isEmpty() || request.isRead() && writesInFlight > 0)
        {
            held.add(request);
            return;
        }
        dispatch(request);
    }

    private void dispatch(final Held request)
    {
        final boolean write = !request.isRead();
        if (request.reply.stepped())
        {
            chain = request.reply;
        }
        final long id = endpoint.nextCorrelationId();
        writesInFlight += write ? 1 : 0;
        waiting.put(id, new Part(request.reply, request.index, write));
        if (request.type == MessageType.PUT_REQUEST)
        {
            endpoint.put(id, request.key, request.value);
        }
        else if (request.type == MessageType.KEY_SCAN_REQUEST)
        {
            endpoint.keyScan(id, request.value);
        }
        else if (request.type == MessageType.BATCH_WRITE_REQUEST)
        {
            endpoint.batch(id, (int)request.record.argument, request.value);
        }
        else if (request.record != null)
        {
            endpoint.record(id, request.record.op, request.record.expectedVersion, request.record.argument,
                request.key, request.value);
        }
        else
        {
            endpoint.keyRequest(id, request.type, request.key);
        }
    }

    /** Send the held requests that may go now, in order. */
    private void releaseHeld()
    {
        Held h;
        while (chain == null && (h = held.peekFirst()) != null && !(h.isRead() && writesInFlight > 0))
        {
            held.pollFirst();
            dispatch(h);
        }
    }

    @Override
    public void answered(final long correlationId, final Status status, final long version, final byte[] payload)
    {
        if (correlationId == RespEndpoint.ATTACH_ID)
        {
            if (status != Status.OK)
            {
                refuse(status == Status.BUSY ? MAX_CLIENTS : "ERR " + status.name() + ": " +
                    (payload == null ? "" : new String(payload, StandardCharsets.UTF_8)));
            }
            return;
        }
        final Part part = waiting.remove(correlationId);
        if (part != null)
        {
            writesInFlight -= part.write ? 1 : 0;
            part.reply.answered(part.index, status, version, payload);
            if (part.reply == chain && part.reply.reply() != null)
            {
                chain = null; // the command of several steps is done: the ones after it may go
            }
            releaseHeld();
        }
    }

    @Override
    public void answersDelivered()
    {
        writeReady();
    }

    @Override
    public void closedByNode()
    {
        refuse(MAX_CLIENTS);
    }

    /** The node would not serve this connection: one error, then close. */
    private void refuse(final String text)
    {
        if (refused || ctx == null || !ctx.channel().isActive())
        {
            return;
        }
        refused = true;
        stats.rejectedConnections.incrementAndGet();
        final ByteBuf out = ctx.alloc().buffer();
        RespReply.error(text).write(out, session == null ? 2 : session.proto);
        ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
    }

    /** Write the replies at the head of the queue that are ready, in order, with one flush. */
    private void writeReady()
    {
        if (refused || replies.isEmpty() || replies.peekFirst().reply() == null)
        {
            return;
        }
        final ByteBuf out = ctx.alloc().buffer();
        boolean closeAfter = false;
        PendingReply head;
        while ((head = replies.peekFirst()) != null && head.reply() != null)
        {
            replies.pollFirst();
            head.reply().write(out, session.proto);
            if (head == last)
            {
                closeAfter = true;
                replies.clear();
                break;
            }
        }
        if (closeAfter)
        {
            ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.writeAndFlush(out);
        resumeReading();
    }

    private void resumeReading()
    {
        if (last == null && !refused && replies.size() + deferred.size() < settings.maxPendingReplies() / 2 + 1 &&
            ctx.channel().isWritable())
        {
            ctx.channel().config().setAutoRead(true);
        }
        else if (!ctx.channel().isWritable())
        {
            ctx.channel().config().setAutoRead(false);
        }
    }

    /** Which request of which reply a correlation id answers, and whether it is a write. */
    private record Part(PendingReply reply, int index, boolean write)
    {
    }

    /** A request to the node, held while it waits for this connection's writes before it ({@link #send}). */
    private record Held(PendingReply reply, int index, MessageType type, byte[] key, byte[] value, RecordOp record)
    {
        /** GET, KEY_SCAN and the TTL read: they wait for the connection's writes before them. */
        boolean isRead()
        {
            return type == MessageType.GET_REQUEST || type == MessageType.KEY_SCAN_REQUEST ||
                record != null && record.op == io.rdmakv.protocol.wire.RecordWriteRequestFlyweight.OP_TTL;
        }
    }

    /** A RECORD_WRITE's op and numbers. */
    private record RecordOp(int op, long expectedVersion, long argument)
    {
    }

    /** For logs. */
    @Override
    public String toString()
    {
        return "resp connection " + (ctx == null ? "" : (InetSocketAddress)ctx.channel().remoteAddress());
    }
}
