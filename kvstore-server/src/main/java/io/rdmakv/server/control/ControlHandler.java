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
import io.rdmakv.protocol.wire.ScramMessage;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.admission.CredentialThrottle;
import io.rdmakv.server.admission.SourceAddress;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.session.Access;
import io.rdmakv.protocol.auth.Role;
import io.rdmakv.protocol.auth.ScramServer;
import io.rdmakv.protocol.auth.User;
import io.rdmakv.transport.log.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;
import java.nio.charset.StandardCharsets;
import java.util.function.BiFunction;

/**
 * One control connection: answers each HELLO with WELCOME, or REJECT and a close. Runs on the Netty event loop.
 * A client with a wrong credential learns nothing about the node (no rkey, no geometry): it gets only
 * REJECT(UNAUTHENTICATED). A WELCOME carries a fresh session ticket: the only way onto the data port.
 *
 * <pre>
 *   active ─► unauthenticated budget (oldest shed when full) ─good HELLO─► welcomed (limits.maxConnections)
 *     └─ no good HELLO within the handshake timeout: REJECT, close        └─ closed a handshake timeout later
 *   HELLO from a source over its failed-credential rate: its check waits its turn (autoRead off meanwhile)
 *   HELLO with a SCRAM client-first message ─► SCRAM challenge ─proof─► SCRAM server-final + WELCOME
 *                                                              └─ wrong proof / unknown user: REJECT(UNAUTHENTICATED)
 *   ADMIN: as the connection's user when it handshook first, else with the shared secret; needs the role admin
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
    private final BiFunction<Hello, Access, Welcome> welcome;
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
    /** A SCRAM exchange started by a HELLO, waiting for the client's proof; null otherwise. */
    private ScramServer scram;
    private Hello scramHello;
    /** The throttle booked the failure slot of the SCRAM exchange's check already (it waited its turn). */
    private boolean scramBooked;
    /** What this connection's handshake authenticated (an ADMIN after it runs as that), or null. */
    private Access access;

    ControlHandler(
        final ControlServer.ControlSettings settings, final BiFunction<Hello, Access, Welcome> welcome,
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
        if (decoded instanceof ScramMessage proof)
        {
            onProof(ctx, proof);
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
        if (scram != null)
        {
            reject(ctx, Status.MALFORMED, MALFORMED_LOG, "a HELLO while a SCRAM exchange waits for its proof");
            return;
        }
        if (!settings.requiresCredential())
        {
            answer(ctx, hello, Access.OPEN);
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
        if (hello.scramFirst().length > 0 && settings.users() != null)
        {
            startScram(ctx, hello, booked);
            return;
        }
        if (hello.scramFirst().length == 0 && settings.secret() != null &&
            MessageDigest.isEqual(settings.secret(), hello.credential()))
        {
            answer(ctx, hello, Access.SHARED_SECRET);
            return;
        }
        final User certified = hello.scramFirst().length == 0 && hello.credential().length == 0 &&
            settings.certificateNamesUser() ? CertificateUser.of(ctx, settings.users()) : null;
        if (certified != null)
        {
            answer(ctx, hello, Access.of(certified));
            return;
        }
        credentialFailed(ctx, booked);
    }

    /** Learn nothing: the same answer for a missing and a wrong credential, a wrong password and an unknown user. */
    private void credentialFailed(final ChannelHandlerContext ctx, final boolean booked)
    {
        if (!booked)
        {
            admission.throttle.recordFailure(source, System.nanoTime());
        }
        reject(ctx, Status.UNAUTHENTICATED, CREDENTIAL_LOG, "credential missing or rejected");
    }

    /** A HELLO naming a user: answer with the SCRAM challenge (a known and an unknown user's look alike). */
    private void startScram(final ChannelHandlerContext ctx, final Hello hello, final boolean booked)
    {
        final ScramServer exchange = new ScramServer(settings.users()::credential, settings.users().unknownUserKey());
        final String challenge;
        try
        {
            challenge = exchange.serverFirst(new String(hello.scramFirst(), StandardCharsets.UTF_8));
        }
        catch (final IllegalArgumentException ex)
        {
            reject(ctx, Status.MALFORMED, MALFORMED_LOG, "bad SCRAM client-first message: " + ex.getMessage());
            return;
        }
        scram = exchange;
        scramHello = hello;
        scramBooked = booked;
        ctx.writeAndFlush(Unpooled.wrappedBuffer(ControlFrameCodec.encode(new ScramMessage(challenge))));
    }

    /** The client's SCRAM proof: the server-final message and the WELCOME, or the one refusal for every failure. */
    private void onProof(final ChannelHandlerContext ctx, final ScramMessage proof)
    {
        final ScramServer exchange = scram;
        final Hello hello = scramHello;
        scram = null;
        scramHello = null;
        if (exchange == null)
        {
            reject(ctx, Status.MALFORMED, MALFORMED_LOG, "a SCRAM message without a HELLO that started an exchange");
            return;
        }
        final String serverFinal = exchange.finish(proof.message());
        final User user = serverFinal == null ? null : settings.users().user(exchange.user());
        if (user == null)
        {
            credentialFailed(ctx, scramBooked);
            return;
        }
        ctx.write(Unpooled.wrappedBuffer(ControlFrameCodec.encode(new ScramMessage(serverFinal))));
        answer(ctx, hello, Access.of(user));
    }

    /** A good HELLO: WELCOME, unless this plane has its authenticated connections already. */
    private void answer(final ChannelHandlerContext ctx, final Hello hello, final Access granted)
    {
        if (!welcomed && admission.authenticated >= admission.maxAuthenticated)
        {
            reject(ctx, Status.BUSY, ADMISSION_LOG, "too many control connections (limit " +
                admission.maxAuthenticated + ")");
            return;
        }
        final Welcome answer = welcome.apply(hello, granted);
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
        access = granted;
        counters.increment(ServerCounter.HANDSHAKES);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(encoded));
    }

    /** One administration command: credential as for HELLO, then the answer when it is done, then close. */
    private void onAdmin(final ChannelHandlerContext ctx, final Admin command)
    {
        final Access granted;
        if (access != null && command.credential().length == 0)
        {
            granted = access; // this connection's handshake authenticated it (a user's SCRAM proof, a certificate)
        }
        else if (settings.requiresCredential())
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
            granted = Access.SHARED_SECRET;
        }
        else
        {
            granted = Access.OPEN;
        }
        if (!granted.may(Role.ADMIN))
        {
            counters.increment(ServerCounter.FORBIDDEN);
            reject(ctx, Status.FORBIDDEN, CREDENTIAL_LOG, granted.describe() + " may not run admin commands (" +
                firstWord(command.command()) + "): it needs the role admin");
            return;
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
        LOG.info("admin command from {} ({}): {}", ctx.channel().remoteAddress(), granted.describe(), command.command());
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

    private static String firstWord(final String command)
    {
        final String[] words = command.strip().split("\\s+");
        return words.length > 1 && words[0].equals("json") ? words[1] : words[0];
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
