package io.rdmakv.server.control;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.concurrent.ScheduledFuture;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.wire.Admin;
import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.protocol.wire.ControlFrame;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.Reject;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One control connection: answers each HELLO with WELCOME, or REJECT and a close. Runs on the Netty event loop.
 * A client with a wrong credential learns nothing about the node (no rkey, no geometry): it gets only
 * REJECT(UNAUTHENTICATED). A WELCOME carries a fresh session ticket: the only way onto the data port.
 */
final class ControlHandler extends SimpleChannelInboundHandler<ByteBuf>
{
    private static final Logger LOG = LoggerFactory.getLogger(ControlHandler.class);

    private final ControlServer.ControlSettings settings;
    private final Supplier<Welcome> welcome;
    private final Supplier<AdminCommands> admin;
    private final ServerCounters counters;
    private final ChannelGroup channels;
    private ScheduledFuture<?> handshakeTimer;
    private boolean counted;
    private boolean welcomed;

    ControlHandler(
        final ControlServer.ControlSettings settings, final Supplier<Welcome> welcome,
        final Supplier<AdminCommands> admin, final ServerCounters counters, final ChannelGroup channels)
    {
        this.settings = settings;
        this.welcome = welcome;
        this.admin = admin;
        this.counters = counters;
        this.channels = channels;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        if (channels.size() >= settings.maxConnections())
        {
            reject(ctx, Status.BUSY, "too many control connections (limit " + settings.maxConnections() + ")");
            return;
        }
        channels.add(ctx.channel());
        counted = true;
        counters.increment(ServerCounter.CONTROL_CONNECTIONS);
        handshakeTimer = ctx.executor().schedule(() ->
        {
            if (!welcomed && ctx.channel().isActive())
            {
                reject(ctx, Status.MALFORMED, "no HELLO within " + settings.handshakeTimeout().toMillis() + " ms");
            }
        }, settings.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        if (handshakeTimer != null)
        {
            handshakeTimer.cancel(false);
        }
        if (counted)
        {
            counted = false;
            counters.decrement(ServerCounter.CONTROL_CONNECTIONS);
        }
        ctx.fireChannelInactive();
    }

    @Override
    protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame)
    {
        final byte[] bytes = new byte[frame.readableBytes()];
        frame.readBytes(bytes);
        final ControlFrame decoded;
        try
        {
            decoded = ControlFrameCodec.decode(bytes);
        }
        catch (final ProtocolException ex)
        {
            reject(ctx, Status.of(ex.errorCode()), "malformed control frame: " + ex.getMessage());
            return;
        }
        if (decoded instanceof Admin command)
        {
            onAdmin(ctx, command);
            return;
        }
        if (!(decoded instanceof Hello hello))
        {
            reject(ctx, Status.MALFORMED, "expected HELLO, got frame type " + decoded.frameType());
            return;
        }
        if (hello.protocolVersion() != ControlFrameCodec.PROTOCOL_VERSION)
        {
            reject(ctx, Status.UNSUPPORTED_VERSION, "protocol version " + hello.protocolVersion() +
                " not supported (server speaks " + ControlFrameCodec.PROTOCOL_VERSION + ")");
            return;
        }
        if (settings.requiresCredential() && !MessageDigest.isEqual(settings.secret(), hello.credential()))
        {
            // Learn nothing: same answer for a missing and a wrong credential, and no node details.
            reject(ctx, Status.UNAUTHENTICATED, "credential missing or rejected");
            return;
        }
        final Welcome answer = welcome.get();
        if (answer == null)
        {
            reject(ctx, Status.BUSY, "too many session tickets waiting to be used; retry later");
            return;
        }
        final byte[] encoded = ControlFrameCodec.encode(answer);
        welcomed = true;
        counters.increment(ServerCounter.HANDSHAKES);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(encoded));
    }

    /** One administration command: credential as for HELLO, then the answer when it is done, then close. */
    private void onAdmin(final ChannelHandlerContext ctx, final Admin command)
    {
        if (settings.requiresCredential() && !MessageDigest.isEqual(settings.secret(), command.credential()))
        {
            reject(ctx, Status.UNAUTHENTICATED, "credential missing or rejected");
            return;
        }
        welcomed = true; // answered below; the handshake timer must not close it meanwhile
        LOG.info("admin command from {}: {}", ctx.channel().remoteAddress(), command.command());
        admin.get().run(command.command()).whenComplete((reply, failure) ->
        {
            final AdminReply answer = failure != null ? new AdminReply(false, String.valueOf(
                failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null ?
                    failure.getCause().getMessage() : failure.getMessage())) : reply;
            final String text = answer.text().length() > 20_000 ? answer.text().substring(0, 20_000) : answer.text();
            ctx.writeAndFlush(Unpooled.wrappedBuffer(ControlFrameCodec.encode(new AdminReply(answer.ok(), text))))
                .addListener(ChannelFutureListener.CLOSE);
        });
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        if (cause instanceof TooLongFrameException)
        {
            reject(ctx, Status.MALFORMED, "control frame exceeds " + settings.maxFrameBytes() + " bytes");
        }
        else if (cause instanceof IOException)
        {
            ctx.close(); // peer reset: nothing to answer
        }
        else
        {
            LOG.warn("control connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            reject(ctx, Status.MALFORMED, "control connection failed: " + cause.getClass().getSimpleName());
        }
    }

    private void reject(final ChannelHandlerContext ctx, final Status status, final String message)
    {
        counters.increment(ServerCounter.HANDSHAKE_REJECTS);
        LOG.info("REJECT {} to {}: {}", status, ctx.channel().remoteAddress(), message);
        if (!ctx.channel().isActive())
        {
            ctx.close();
            return;
        }
        final String text = message.length() > 200 ? message.substring(0, 200) : message;
        final byte[] encoded = ControlFrameCodec.encode(new Reject(status, text));
        // Stop reading more bytes of a connection we are about to close.
        ctx.channel().config().setAutoRead(false);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(encoded)).addListener(ChannelFutureListener.CLOSE);
    }
}
