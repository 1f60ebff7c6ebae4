package io.rdmakv.transport.verbs;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.base.EndpointLifecycle;
import io.rdmakv.transport.log.RateLimitedLog;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The TCP control channel of one verbs connection (Netty): exchanges {@link HandshakeMessage}s to bring both QPs up,
 * then stays open as a liveness signal; losing it fails the endpoint. Netty's thread only decodes and hands work to
 * the worker ({@link VerbsWorker#execute}): every verbs call and every callback happens on the worker's thread.
 *
 * <pre>
 *   client                                   server
 *   create QP, post receives, INIT
 *   HELLO(lid, gid, qpn, psn, mtu, depth) --->
 *                                            create QP, post receives, INIT, RTR, RTS
 *                                       <--- HELLO(...)
 *   RTR, RTS (endpoint usable)
 *   READY -------------------------------->  onConnected (endpoint usable)
 *   ... RDMA traffic ...                      (TCP kept open: its loss = PEER_FAILED)
 *   BYE ---------------------------------->  onDisconnected(CLOSED)
 *
 *   or, when the server cannot take the endpoint (e.g. every buffer slice in use):
 *                                       <--- REFUSE(reason), close
 *   connect fails with the reason
 *
 *   or, when the client has not finished (READY or a first message) within verbs.handshakeTimeoutMs:
 *                                            close: the descriptor, and the endpoint slot if HELLO took one, free
 * </pre>
 */
final class ControlChannel
{
    private static final Logger LOG = LoggerFactory.getLogger(ControlChannel.class);
    /** Peers decide how often these happen. */
    private static final RateLimitedLog REFUSED = RateLimitedLog.of(LOG);
    private static final RateLimitedLog ACCEPTED_FAILED = RateLimitedLog.of(LOG);
    private static final RateLimitedLog HANDSHAKE_EXPIRED = RateLimitedLog.of(LOG);

    private ControlChannel()
    {
    }

    static void initPipeline(final SocketChannel ch, final SimpleChannelInboundHandler<ByteBuf> handler)
    {
        ch.pipeline()
            .addLast(new LengthFieldBasedFrameDecoder(HandshakeMessage.MAX_FRAME, 0, 2, 0, 2))
            .addLast(new LengthFieldPrepender(2))
            .addLast(handler);
    }

    /**
     * @param handshakeTimeoutMs how long an accepted connection may take to finish the handshake before it is closed.
     */
    static ChannelInitializer<SocketChannel> serverInitializer(final VerbsWorker worker, final EndpointHandler handler,
        final long handshakeTimeoutMs)
    {
        return new ChannelInitializer<>()
        {
            @Override
            protected void initChannel(final SocketChannel ch)
            {
                initPipeline(ch, new ServerSide(worker, handler, handshakeTimeoutMs));
            }
        };
    }

    static void sendByeAndClose(final Channel channel)
    {
        final ByteBuf buf = channel.alloc().buffer(HandshakeMessage.HEADER_LENGTH);
        final UnsafeBuffer view = new UnsafeBuffer(new byte[HandshakeMessage.HEADER_LENGTH]);
        HandshakeMessage.encodeHeader(view, 0, HandshakeMessage.TYPE_BYE);
        buf.writeBytes(view.byteArray());
        channel.writeAndFlush(buf).addListener(ChannelFutureListener.CLOSE);
    }

    static void sendHeader(final Channel channel, final int type)
    {
        final UnsafeBuffer view = new UnsafeBuffer(new byte[HandshakeMessage.HEADER_LENGTH]);
        HandshakeMessage.encodeHeader(view, 0, type);
        channel.writeAndFlush(channel.alloc().buffer(HandshakeMessage.HEADER_LENGTH).writeBytes(view.byteArray()));
    }

    static void sendHello(final Channel channel, final VerbsDevice device, final VerbsEndpoint endpoint)
    {
        final UnsafeBuffer view = new UnsafeBuffer(new byte[HandshakeMessage.HELLO_LENGTH]);
        HandshakeMessage.encodeHello(view, 0, device.lid, device.activeMtu, device.port, endpoint.qp.qpNumber,
            endpoint.qp.psn, endpoint.qp.recvDepth, endpoint.fragmentBytes(), device.gid);
        channel.writeAndFlush(channel.alloc().buffer(HandshakeMessage.HELLO_LENGTH).writeBytes(view.byteArray()));
    }

    /** Tell the client why its connection is refused, then close. */
    static void sendRefuseAndClose(final Channel channel, final String reason)
    {
        final UnsafeBuffer view = new UnsafeBuffer(new byte[HandshakeMessage.HEADER_LENGTH + HandshakeMessage.MAX_REASON]);
        final int length = HandshakeMessage.encodeRefuse(view, 0, reason);
        channel.writeAndFlush(channel.alloc().buffer(length).writeBytes(view.byteArray(), 0, length))
            .addListener(ChannelFutureListener.CLOSE);
    }

    static int randomPsn()
    {
        return ThreadLocalRandom.current().nextInt() & 0xFF_FFFF;
    }

    /** Decode one frame into a validated message (copied: frames are tiny and this is the control plane). */
    private static HandshakeMessage decode(final ByteBuf frame)
    {
        final byte[] bytes = new byte[frame.readableBytes()];
        frame.readBytes(bytes);
        return new HandshakeMessage().wrapAndValidate(new UnsafeBuffer(bytes), 0, bytes.length);
    }

    private static VerbsQueuePair.Remote remote(final HandshakeMessage m)
    {
        final byte[] gid = new byte[16];
        m.gid(gid);
        return new VerbsQueuePair.Remote(m.lid(), gid, m.qpNumber(), m.psn(), m.activeMtu(), m.recvDepth(),
            m.fragmentBytes());
    }

    /** Accepting side. */
    static final class ServerSide extends SimpleChannelInboundHandler<ByteBuf>
    {
        private final VerbsWorker worker;
        private final EndpointHandler handler;
        private final long handshakeTimeoutMs;
        private volatile VerbsEndpoint endpoint;
        /** Event loop only. */
        private ScheduledFuture<?> handshakeDeadline;

        ServerSide(final VerbsWorker worker, final EndpointHandler handler, final long handshakeTimeoutMs)
        {
            this.worker = worker;
            this.handler = handler;
            this.handshakeTimeoutMs = handshakeTimeoutMs;
        }

        @Override
        public void channelActive(final ChannelHandlerContext ctx) throws Exception
        {
            handshakeDeadline = ctx.executor().schedule(() -> handshakeExpired(ctx), handshakeTimeoutMs,
                TimeUnit.MILLISECONDS);
            super.channelActive(ctx);
        }

        /**
         * The deadline passed: unless the endpoint is usable (READY, or a first message, activated it), close the
         * connection. Its loss then fails the endpoint (if HELLO made one), which frees the slot.
         */
        private void handshakeExpired(final ChannelHandlerContext ctx)
        {
            final VerbsEndpoint ep = endpoint;
            if (ep != null && ep.state() != EndpointLifecycle.State.CONNECTING)
            {
                return;
            }
            HANDSHAKE_EXPIRED.warn("verbs control connection from {} did not finish its handshake within {} ms " +
                "(verbs.handshakeTimeoutMs): closed", ctx.channel().remoteAddress(), handshakeTimeoutMs);
            ctx.close();
        }

        private void cancelDeadline()
        {
            final ScheduledFuture<?> deadline = handshakeDeadline;
            if (deadline != null)
            {
                deadline.cancel(false);
                handshakeDeadline = null;
            }
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame)
        {
            final HandshakeMessage m = decode(frame);
            final Channel channel = ctx.channel();
            switch (m.type())
            {
                case HandshakeMessage.TYPE_HELLO:
                    if (endpoint != null)
                    {
                        throw new HandshakeMessage.HandshakeException("second HELLO on one connection");
                    }
                    final VerbsQueuePair.Remote remote = remote(m);
                    worker.execute(() -> accept(channel, remote));
                    break;
                case HandshakeMessage.TYPE_READY:
                    cancelDeadline();
                    worker.execute(() ->
                    {
                        final VerbsEndpoint ep = endpoint;
                        if (ep != null)
                        {
                            ep.activateAccepted();
                        }
                    });
                    break;
                default:
                    final VerbsEndpoint ep = endpoint;
                    if (ep != null)
                    {
                        ep.peerSaidBye();
                    }
                    ctx.close();
                    break;
            }
        }

        private void accept(final Channel channel, final VerbsQueuePair.Remote remote)
        {
            if (!channel.isActive())
            {
                return;
            }
            try
            {
                final VerbsEndpoint ep = worker.createEndpoint(handler, (InetSocketAddress)channel.remoteAddress());
                try
                {
                    ep.attach(channel);
                    ep.connectQueuePair(remote);
                }
                catch (final RuntimeException e)
                {
                    ep.close();
                    throw e;
                }
                endpoint = ep;
                sendHello(channel, worker.device(), ep);
                if (!channel.isActive())
                {
                    ep.fail(TransportStatus.PEER_FAILED, "control connection closed during handshake");
                }
            }
            catch (final RuntimeException e)
            {
                REFUSED.warn("verbs connection from {} refused: {}", channel.remoteAddress(), e.getMessage());
                sendRefuseAndClose(channel, String.valueOf(e.getMessage()));
            }
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx)
        {
            cancelDeadline();
            worker.execute(() ->
            {
                final VerbsEndpoint ep = endpoint;
                if (ep != null)
                {
                    lost(ep);
                }
            });
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            ACCEPTED_FAILED.warn("verbs control channel from {} closed: {}", ctx.channel().remoteAddress(),
                cause.toString());
            ctx.close();
        }
    }

    /** Connecting side: completes {@code future} on the worker thread. */
    static final class ClientSide extends SimpleChannelInboundHandler<ByteBuf>
    {
        private final VerbsWorker worker;
        private final EndpointHandler handler;
        private final CompletableFuture<Endpoint> future;
        private final InetSocketAddress remoteAddress;
        private volatile VerbsEndpoint endpoint;

        ClientSide(final VerbsWorker worker, final EndpointHandler handler, final CompletableFuture<Endpoint> future,
            final InetSocketAddress remoteAddress)
        {
            this.worker = worker;
            this.handler = handler;
            this.future = future;
            this.remoteAddress = remoteAddress;
        }

        @Override
        public void channelActive(final ChannelHandlerContext ctx)
        {
            final Channel channel = ctx.channel();
            worker.execute(() ->
            {
                try
                {
                    final VerbsEndpoint ep = worker.createEndpoint(handler, remoteAddress);
                    ep.attach(channel);
                    endpoint = ep;
                    sendHello(channel, worker.device(), ep);
                }
                catch (final RuntimeException e)
                {
                    failConnect(channel, e);
                }
            });
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame)
        {
            final HandshakeMessage m = decode(frame);
            final Channel channel = ctx.channel();
            if (m.type() == HandshakeMessage.TYPE_HELLO)
            {
                final VerbsQueuePair.Remote remote = remote(m);
                worker.execute(() -> established(channel, remote));
            }
            else if (m.type() == HandshakeMessage.TYPE_REFUSE)
            {
                final String reason = m.reason();
                worker.execute(() -> failConnect(channel, new TransportException(TransportStatus.NOT_CONNECTED,
                    "verbs connect to " + remoteAddress + " refused by the server: " + reason, null)));
            }
            else if (m.type() == HandshakeMessage.TYPE_BYE)
            {
                final VerbsEndpoint ep = endpoint;
                if (ep != null)
                {
                    ep.peerSaidBye();
                }
                ctx.close();
            }
            else
            {
                throw new HandshakeMessage.HandshakeException("unexpected message type " + m.type() + " from server");
            }
        }

        private void established(final Channel channel, final VerbsQueuePair.Remote remote)
        {
            final VerbsEndpoint ep = endpoint;
            if (ep == null || future.isDone())
            {
                return;
            }
            try
            {
                ep.connectQueuePair(remote);
                ep.connected();
                sendHeader(channel, HandshakeMessage.TYPE_READY);
                future.complete(ep);
            }
            catch (final RuntimeException e)
            {
                failConnect(channel, e);
            }
        }

        void failConnect(final Channel channel, final Throwable cause)
        {
            final VerbsEndpoint ep = endpoint;
            if (ep != null)
            {
                ep.close();
            }
            channel.close();
            future.completeExceptionally(cause instanceof TransportException ? cause :
                new TransportException(TransportStatus.NOT_CONNECTED, "verbs connect to " + remoteAddress +
                    " failed: " + cause.getMessage(), cause));
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx)
        {
            worker.execute(() ->
            {
                if (!future.isDone())
                {
                    failConnect(ctx.channel(), new TransportException(TransportStatus.NOT_CONNECTED,
                        "verbs connect to " + remoteAddress + " failed: the server closed the control connection " +
                            "during the handshake", null));
                    return;
                }
                final VerbsEndpoint ep = endpoint;
                if (ep != null)
                {
                    lost(ep);
                }
            });
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            LOG.warn("verbs control channel to {} closed: {}", remoteAddress, cause.toString());
            worker.execute(() ->
            {
                if (!future.isDone())
                {
                    failConnect(ctx.channel(), cause);
                }
            });
            ctx.close();
        }
    }

    private static void lost(final VerbsEndpoint ep)
    {
        if (ep.hasPeerSaidBye())
        {
            // Operations the peer will never answer failed because of the peer, whether it left politely or not.
            ep.sideChannelLost("closed by peer");
        }
        else
        {
            ep.sideChannelLost("control connection to " + ep.remoteAddress() + " lost");
        }
    }
}
