package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import io.rdmakv.transport.log.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * The one handler of every TCP transport channel, on the Netty I/O thread: it cuts {@link TcpFrames} out of the bytes
 * read and dispatches them where they lie, without a slice or copy per frame (Netty's cumulation keeps partial frames
 * across reads). Messages and read responses go to the {@link TcpEndpoint} (delivered inline when the worker is
 * event-driven, else handed to its queue); read requests are answered right here by the
 * {@link TcpEmulatedReadResponder}, below the application and without its worker, and flushed once per read batch.
 * A malformed or oversized frame closes the connection with one clear log line (rate-limited: a peer causes it);
 * outstanding operations then fail, and the endpoint reports its disconnect as TRANSPORT_ERROR (a server counts it
 * as a malformed request).
 */
final class TcpChannelHandler extends ByteToMessageDecoder
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpChannelHandler.class);
    /** A peer decides how often these happen: at most a burst of lines, then a count. */
    private static final RateLimitedLog REFUSED_FRAMES = RateLimitedLog.of(LOG);
    private static final RateLimitedLog PROTOCOL_ERRORS = RateLimitedLog.of(LOG);

    private final TcpEndpoint endpoint;
    private final TcpEmulatedReadResponder responder;
    private final boolean accepted;
    private final int maxFrameLength;
    /** Read responses written during this read batch and not flushed yet (event loop only). */
    private boolean flushPending;
    private boolean failed;

    TcpChannelHandler(final TcpEndpoint endpoint, final TcpEmulatedReadResponder responder, final boolean accepted,
        final int maxFrameLength)
    {
        this.endpoint = endpoint;
        this.responder = responder;
        this.accepted = accepted;
        this.maxFrameLength = maxFrameLength;
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

    /** Every complete frame in {@code in}, dispatched in place; nothing is added to {@code out}. */
    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out)
    {
        while (!failed && in.readableBytes() >= TcpFrames.LENGTH_FIELD_LENGTH)
        {
            if (endpoint.isLingering())
            {
                // Closed locally (maybe by the frame just dispatched): read on to avoid an RST, deliver nothing.
                in.skipBytes(in.readableBytes());
                return;
            }
            final int start = in.readerIndex();
            final int length = in.getInt(start);
            if (length < 0 || length > maxFrameLength)
            {
                if (in.readableBytes() >= 5 && SslHandler.isEncrypted(in, false))
                {
                    refuse(ctx, in, "refused a TLS client from " + ctx.channel().remoteAddress() + " on a plaintext " +
                        "port (this side has no TLS: tls.certFile unset); closing the connection");
                    return;
                }
                refuse(ctx, in, "refused frame from " + ctx.channel().remoteAddress() + ": length " + length +
                    (length < 0 ? " is negative" : " exceeds the limit of " + maxFrameLength) +
                    "; closing the connection");
                return;
            }
            if (in.readableBytes() < TcpFrames.LENGTH_FIELD_LENGTH + length)
            {
                return; // the rest of the frame comes with a later read
            }
            in.readerIndex(start + TcpFrames.LENGTH_FIELD_LENGTH + length);
            dispatch(ctx, in, start + TcpFrames.LENGTH_FIELD_LENGTH, length);
        }
    }

    /** One frame of {@code length} bytes at {@code index} of {@code buf} (valid during this call only). */
    private void dispatch(final ChannelHandlerContext ctx, final ByteBuf buf, final int index, final int length)
    {
        if (length == 0)
        {
            protocolError(ctx, buf, "empty frame");
            return;
        }
        final byte type = buf.getByte(index);
        final int body = index + TcpFrames.TYPE_LENGTH;
        final int bodyLength = length - TcpFrames.TYPE_LENGTH;
        switch (type)
        {
            case TcpFrames.TYPE_MESSAGE:
                endpoint.onMessage(buf, body, bodyLength);
                return;

            case TcpFrames.TYPE_READ_REQUEST:
                if (bodyLength != TcpFrames.READ_REQUEST_BODY_LENGTH)
                {
                    protocolError(ctx, buf, "read request of " + bodyLength + " body bytes");
                    return;
                }
                final long correlationId = buf.getLong(body);
                final int regionId = buf.getInt(body + 8);
                final int readLength = buf.getInt(body + 12);
                final long token = buf.getLong(body + 16);
                final long address = buf.getLong(body + 24);
                // Flushed once per read batch (channelReadComplete); a failed write closes the channel.
                ctx.write(responder.answer(ctx.alloc(), correlationId, regionId, readLength, token, address),
                    ctx.voidPromise());
                flushPending = true;
                return;

            case TcpFrames.TYPE_READ_RESPONSE:
                if (bodyLength < TcpFrames.READ_RESPONSE_HEADER_LENGTH)
                {
                    protocolError(ctx, buf, "truncated read response");
                    return;
                }
                final int data = body + TcpFrames.READ_RESPONSE_HEADER_LENGTH;
                endpoint.onReadResponse(buf.getLong(body), buf.getInt(body + 8), buf, data,
                    bodyLength - TcpFrames.READ_RESPONSE_HEADER_LENGTH);
                return;

            default:
                protocolError(ctx, buf, "unknown frame type " + type);
        }
    }

    /**
     * Not the decoder's own: it would call {@code read()} whenever a batch produced no output, which is always here
     * (frames are dispatched, never emitted), and so defeat auto-read off, the back-pressure of a polled worker's
     * full inbound queue.
     */
    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        if (flushPending)
        {
            flushPending = false;
            ctx.flush();
        }
        discardSomeReadBytes();
        ctx.fireChannelReadComplete();
    }

    private void protocolError(final ChannelHandlerContext ctx, final ByteBuf in, final String what)
    {
        final String detail = "protocol error from " + ctx.channel().remoteAddress() + ": " + what +
            "; closing the connection";
        PROTOCOL_ERRORS.warn(detail);
        fail(ctx, in, detail);
    }

    /** An oversized or negative length: log (rate-limited) and {@link #fail}. */
    private void refuse(final ChannelHandlerContext ctx, final ByteBuf in, final String detail)
    {
        REFUSED_FRAMES.warn(detail);
        fail(ctx, in, detail);
    }

    /** Stop decoding this connection for good: skip what was read, record why, close. */
    private void fail(final ChannelHandlerContext ctx, final ByteBuf in, final String detail)
    {
        failed = true;
        in.skipBytes(in.readableBytes());
        endpoint.recordProtocolError(detail);
        ctx.close();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        final String detail = "connection to " + ctx.channel().remoteAddress() + " failed: " + cause;
        LOG.debug(detail, cause);
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
