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
import io.rdmakv.server.admission.CredentialThrottle;
import io.rdmakv.server.admission.SourceAddress;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.transport.log.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One control connection: answers each HELLO with WELCOME, or REJECT and a close. Runs on the Netty event loop.
 * A client with a wrong credential learns nothing about the node (no rkey, no geometry): it gets only
 * REJECT(UNAUTHENTICATED). A WELCOME carries a fresh session ticket: the only way onto the data port.
 *
 * <pre>
 *   active ─► unauthenticated budget (oldest shed when full) ─good HELLO─► welcomed (limits.maxConnections)
 *     └─ no good HELLO within the handshake timeout: REJECT, close        └─ closed a handshake timeout later
 *   HELLO from a source over its failed-credential rate: its check waits its turn (autoRead off meanwhile)
 * </pre>
 */
final class ControlHandler extends SimpleChannelInboundHandler<ByteBuf>
{
    private static final Logger LOG = LoggerFactory.getLogger(ControlHandler.class);
    /** Peers decide how often these happen; one site per kind, so one flood cannot hide another. */
    private static final RateLimitedLog MALFORMED_LOG = RateLimitedLog.of(LOG);
    private static final RateLimitedLog CREDENTIAL_LOG = RateLimitedLog.of(LOG);
    private static final RateLimitedLog ADMISSION_LOG = RateLimitedLog.of(LOG);

    private final ControlServer.ControlSettings settings;
    private final Function<Hello, Welcome> welcome;
    private final AdminCommands admin;
    private final ServerCounters counters;
    private final ChannelGroup channels;
    private final ControlAdmission admission;
    private ChannelHandlerContext context;
    private InetAddress source;
    private long connectedAtNanos;
    private ScheduledFuture<?> timer;
    private boolean counted;
    private boolean welcomed;
    private boolean checking;

    ControlHandler(
        final ControlServer.ControlSettings settings, final Function<Hello, Welcome> welcome,
        final AdminCommands admin, final ServerCounters counters, final ChannelGroup channels,
        final ControlAdmission admission)
    {
        this.settings = settings;
        this.welcome = welcome;
        this.admin = admin;
        this.counters = counters;
        this.channels = channels;
        this.admission = admission;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx)
    {
        context = ctx;
        source = SourceAddress.of(ctx.channel().remoteAddress());
        connectedAtNanos = System.nanoTime();
        channels.add(ctx.channel());
        counted = true;
        counters.increment(ServerCounter.CONTROL_CONNECTIONS);
        final ControlHandler shed = admission.unauthenticated.admit(this, source, connectedAtNanos);
        if (shed != null)
        {
            shed.shed(admission.unauthenticated.lastShedReason());
        }
        timer = ctx.executor().schedule(this::onDeadline, settings.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    /** Closed to make room for a newer unauthenticated connection (it is no longer in the budget). */
    private void shed(final String bound)
    {
        counters.increment(ServerCounter.CONTROL_SHED);
        reject(context, Status.BUSY, ADMISSION_LOG, "shed: the oldest connection without a good HELLO when a newer one " +
            "found " + bound + " reached");
    }

    private void onDeadline()
    {
        if (!context.channel().isActive())
        {
            return;
        }
        if (welcomed)
        {
            context.close(); // one handshake per connection: a client closes after the WELCOME
            return;
        }
        counters.increment(ServerCounter.CONTROL_TIMEOUTS);
        reject(context, Status.MALFORMED, ADMISSION_LOG, "no good HELLO within " +
            settings.handshakeTimeout().toMillis() + " ms");
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        if (timer != null)
        {
            timer.cancel(false);
        }
        admission.unauthenticated.remove(this);
        if (welcomed)
        {
            welcomed = false;
            admission.authenticated--;
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
        if (checking)
        {
            reject(ctx, Status.MALFORMED, MALFORMED_LOG, "a second frame before the HELLO was answered");
            return;
        }
        final byte[] bytes = new byte[frame.readableBytes()];
        frame.readBytes(bytes);
        final ControlFrame decoded;
        try
        {
            decoded = ControlFrameCodec.decode(bytes);
        }
        catch (final ProtocolException ex)
        {
            reject(ctx, Status.of(ex.errorCode()), MALFORMED_LOG, "malformed control frame: " + ex.getMessage());
            return;
        }
        if (decoded instanceof Admin command)
        {
            onAdmin(ctx, command);
            return;
        }
        if (!(decoded instanceof Hello hello))
        {
            reject(ctx, Status.MALFORMED, MALFORMED_LOG, "expected HELLO, got frame type " + decoded.frameType());
            return;
        }
        if (hello.protocolVersion() != ControlFrameCodec.PROTOCOL_VERSION)
        {
            reject(ctx, Status.UNSUPPORTED_VERSION, MALFORMED_LOG, "protocol version " + hello.protocolVersion() +
                " not supported (server speaks " + ControlFrameCodec.PROTOCOL_VERSION + ")");
            return;
        }
        if (!settings.requiresCredential())
        {
            answer(ctx, hello);
            return;
        }
        final long now = System.nanoTime();
        final long left = connectedAtNanos + settings.handshakeTimeout().toNanos() - now;
        final long delay = welcomed ? 0 : admission.throttle.delayNanos(source, now, left);
        if (delay == CredentialThrottle.REFUSE)
        {
            counters.increment(ServerCounter.CREDENTIALS_THROTTLED);
            reject(ctx, Status.BUSY, CREDENTIAL_LOG, "too many wrong credentials from this address; retry later");
            return;
        }
        if (delay > 0)
        {
            // Checked when its turn comes, right or wrong; read nothing more meanwhile.
            counters.increment(ServerCounter.CREDENTIALS_THROTTLED);
            checking = true;
            ctx.channel().config().setAutoRead(false);
            ctx.executor().schedule(() -> checkCredential(ctx, hello, true), delay, TimeUnit.NANOSECONDS);
            return;
        }
        checkCredential(ctx, hello, false);
    }

    /** @param booked the throttle booked a failure slot for this check already. */
    private void checkCredential(final ChannelHandlerContext ctx, final Hello hello, final boolean booked)
    {
        if (booked)
        {
            checking = false;
            if (!ctx.channel().isActive())
            {
                return; // shed or timed out while waiting
            }
            ctx.channel().config().setAutoRead(true);
        }
        if (!MessageDigest.isEqual(settings.secret(), hello.credential()))
        {
            if (!booked)
            {
                admission.throttle.recordFailure(source, System.nanoTime());
            }
            // Learn nothing: same answer for a missing and a wrong credential, and no node details.
            reject(ctx, Status.UNAUTHENTICATED, CREDENTIAL_LOG, "credential missing or rejected");
            return;
        }
        answer(ctx, hello);
    }

    /** A good HELLO: WELCOME, unless this plane has its authenticated connections already. */
    private void answer(final ChannelHandlerContext ctx, final Hello hello)
    {
        if (!welcomed && admission.authenticated >= admission.maxAuthenticated)
        {
            reject(ctx, Status.BUSY, ADMISSION_LOG, "too many control connections (limit " +
                admission.maxAuthenticated + ")");
            return;
        }
        final Welcome answer = welcome.apply(hello);
        if (answer == null)
        {
            reject(ctx, Status.BUSY, ADMISSION_LOG, "too many session tickets waiting to be used; retry later");
            return;
        }
        final byte[] encoded = ControlFrameCodec.encode(answer);
        if (!welcomed)
        {
            welcomed = true;
            admission.authenticated++;
            admission.unauthenticated.authenticated(this);
            timer.cancel(false);
            timer = ctx.executor().schedule(this::onDeadline, settings.handshakeTimeout().toMillis(),
                TimeUnit.MILLISECONDS);
        }
        counters.increment(ServerCounter.HANDSHAKES);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(encoded));
    }

    /** One administration command: credential as for HELLO, then the answer when it is done, then close. */
    private void onAdmin(final ChannelHandlerContext ctx, final Admin command)
    {
        if (settings.requiresCredential())
        {
            // An admin command's credential counts toward the same per-source throttle as a HELLO's.
            final long now = System.nanoTime();
            final long left = connectedAtNanos + settings.handshakeTimeout().toNanos() - now;
            if (admission.throttle.delayNanos(source, now, left) != 0)
            {
                counters.increment(ServerCounter.CREDENTIALS_THROTTLED);
                reject(ctx, Status.BUSY, CREDENTIAL_LOG, "too many wrong credentials from this address; retry later");
                return;
            }
            if (!MessageDigest.isEqual(settings.secret(), command.credential()))
            {
                admission.throttle.recordFailure(source, now);
                reject(ctx, Status.UNAUTHENTICATED, CREDENTIAL_LOG, "credential missing or rejected");
                return;
            }
        }
        if (!welcomed)
        {
            // Authenticated: it counts toward the plane's authenticated connections, as a WELCOMEd one does (and is
            // given back when it closes), and leaves the unauthenticated budget.
            if (admission.authenticated >= admission.maxAuthenticated)
            {
                reject(ctx, Status.BUSY, ADMISSION_LOG, "too many control connections (limit " +
                    admission.maxAuthenticated + ")");
                return;
            }
            welcomed = true;
            admission.authenticated++;
            admission.unauthenticated.authenticated(this);
        }
        // Answered when the command is done, however long it runs (remove-node waits for catch-ups): the handshake
        // deadline must not close it meanwhile.
        if (timer != null)
        {
            timer.cancel(false);
        }
        LOG.info("admin command from {}: {}", ctx.channel().remoteAddress(), command.command());
        admin.run(command.command()).whenComplete((reply, failure) ->
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
            reject(ctx, Status.MALFORMED, MALFORMED_LOG, "control frame exceeds " + settings.maxFrameBytes() +
                " bytes");
        }
        else if (cause instanceof IOException)
        {
            ctx.close(); // peer reset: nothing to answer
        }
        else
        {
            MALFORMED_LOG.warn("control connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            reject(ctx, Status.MALFORMED, MALFORMED_LOG, "control connection failed: " +
                cause.getClass().getSimpleName());
        }
    }

    private void reject(final ChannelHandlerContext ctx, final Status status, final RateLimitedLog log,
        final String message)
    {
        counters.increment(ServerCounter.HANDSHAKE_REJECTS);
        log.info("REJECT {} to {}: {}", status, ctx.channel().remoteAddress(), message);
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
