package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.rdmakv.transport.TransportStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of every TCP transport channel, on the Netty I/O thread. It dispatches decoded frames:
 * messages and read responses go to the {@link TcpEndpoint} (and from there to the worker); read requests are
 * answered right here by the {@link TcpEmulatedReadResponder}, below the application and without its worker.
 * A malformed or oversized frame closes the connection with one clear log line; outstanding operations then fail.
 */
final class TcpChannelHandler extends ChannelInboundHandlerAdapter
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpChannelHandler.class);

    private final TcpEndpoint endpoint;
    private final TcpEmulatedReadResponder responder;
    private final boolean accepted;
    /** Read responses written during this read batch and not flushed yet (event loop only). */
    private boolean flushPending;

    TcpChannelHandler(final TcpEndpoint endpoint, final TcpEmulatedReadResponder responder, final boolean accepted)
    {
        this.endpoint = endpoint;
        this.responder = responder;
        this.accepted = accepted;
    }

    TcpEndpoint endpoint()
    {
        return endpoint;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) throws Exception
    {
        endpoint.markActive();
        if (accepted)
        {
            endpoint.tcpWorker().announceAccepted(endpoint);
        }
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        final ByteBuf frame = (ByteBuf)msg;
        if (!frame.isReadable())
        {
            protocolError(ctx, frame, "empty frame");
            return;
        }
        final byte type = frame.readByte();
        switch (type)
        {
            case TcpFrames.TYPE_MESSAGE:
                endpoint.onMessage(frame); // ownership passes to the endpoint
                return;

            case TcpFrames.TYPE_READ_REQUEST:
                if (frame.readableBytes() != TcpFrames.READ_REQUEST_BODY_LENGTH)
                {
                    protocolError(ctx, frame, "read request of " + frame.readableBytes() + " body bytes");
                    return;
                }
                final long correlationId = frame.readLong();
                final int regionId = frame.readInt();
                final int length = frame.readInt();
                final long token = frame.readLong();
                final long address = frame.readLong();
                frame.release();
                // Flushed once per read batch (channelReadComplete); a failed write closes the channel.
                ctx.write(responder.answer(ctx.alloc(), correlationId, regionId, length, token, address),
                    ctx.voidPromise());
                flushPending = true;
                return;

            case TcpFrames.TYPE_READ_RESPONSE:
                if (frame.readableBytes() < TcpFrames.READ_RESPONSE_HEADER_LENGTH)
                {
                    protocolError(ctx, frame, "truncated read response");
                    return;
                }
                final long responseId = frame.readLong();
                final int status = frame.readInt();
                try
                {
                    endpoint.onReadResponse(responseId, status, frame);
                }
                finally
                {
                    frame.release();
                }
                return;

            default:
                protocolError(ctx, frame, "unknown frame type " + type);
        }
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx) throws Exception
    {
        if (flushPending)
        {
            flushPending = false;
            ctx.flush();
        }
        super.channelReadComplete(ctx);
    }

    private void protocolError(final ChannelHandlerContext ctx, final ByteBuf frame, final String what)
    {
        frame.release();
        final String detail = "protocol error from " + ctx.channel().remoteAddress() + ": " + what +
            "; closing the connection";
        LOG.warn(detail);
        endpoint.recordFailure(detail);
        ctx.close();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        final String detail;
        if (cause instanceof TooLongFrameException)
        {
            detail = "refused frame from " + ctx.channel().remoteAddress() + ": " + cause.getMessage() +
                "; closing the connection";
            LOG.warn(detail);
        }
        else
        {
            detail = "connection to " + ctx.channel().remoteAddress() + " failed: " + cause;
            LOG.debug(detail, cause);
        }
        endpoint.recordFailure(detail);
        ctx.close();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception
    {
        endpoint.onInactive("connection to " + ctx.channel().remoteAddress() + " closed");
        super.channelInactive(ctx);
    }
}
