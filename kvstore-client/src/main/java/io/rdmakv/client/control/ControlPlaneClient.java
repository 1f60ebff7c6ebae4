package io.rdmakv.client.control;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.rdmakv.client.HostPort;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.auth.Login;
import io.rdmakv.protocol.auth.ScramClient;
import io.rdmakv.protocol.wire.Admin;
import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.protocol.wire.ControlFrame;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.Reject;
import io.rdmakv.protocol.wire.ScramMessage;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.transport.tls.TlsFailures;
import io.rdmakv.transport.tls.TlsSettings;

import javax.net.ssl.SSLException;
import java.net.ConnectException;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The client side of the control-plane handshake, on Netty: connect to a node's control port, send HELLO, read
 * WELCOME or REJECT, close. One short connection per handshake; the data path never waits on it.
 *
 * <pre>
 *   +-------------------------+------------------------------------------------+
 *   | frame length (u32, LE)  | control frame (ControlFrameCodec, &lt;= 64 KiB)   |
 *   +-------------------------+------------------------------------------------+
 * </pre>
 * With a {@link Login} the HELLO names the user and a SCRAM-SHA-256 exchange runs before the WELCOME (challenge,
 * proof, the node's signature, checked); an ADMIN then goes on the same connection, as that user.
 * A frame longer than the maximum, a malformed frame, a closed connection or silence past the timeout all end in a
 * {@link KvException} naming the node and the cause; a REJECT ends in one carrying the server's status and message.
 */
public final class ControlPlaneClient implements AutoCloseable
{
    /** Byte order of the u32 length prefix (the whole protocol is little-endian). */
    public static final ByteOrder LENGTH_PREFIX_ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final int LENGTH_PREFIX_BYTES = 4;

    private final EventLoopGroup group;
    /** TLS 1.3 to every node, or null for plaintext. */
    private final SslContext tls;
    /** The user this client logs in as, or null (the HELLO's credential only). */
    private final Login login;

    /** One event-loop thread (a daemon) for this client's handshakes; closed with {@link #close()}. */
    public ControlPlaneClient()
    {
        this(TlsSettings.OFF);
    }

    /**
     * As {@link #ControlPlaneClient()}, speaking TLS 1.3 to every node when {@code tls} is on.
     *
     * @throws KvException {@link KvError#CONNECTION_FAILED} when a TLS file cannot be read or parsed.
     */
    public ControlPlaneClient(final TlsSettings tls)
    {
        this(tls, null);
    }

    /**
     * As {@link #ControlPlaneClient(TlsSettings)}, logging in as {@code login} (SCRAM-SHA-256) when not null.
     */
    public ControlPlaneClient(final TlsSettings tls, final Login login)
    {
        this.login = login;
        try
        {
            this.tls = tls.enabled() ? tls.clientContext() : null;
        }
        catch (final IllegalArgumentException ex)
        {
            throw KvException.of(KvError.CONNECTION_FAILED, ex.getMessage(), ex);
        }
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("rdmakv-client-control", true),
            NioIoHandler.newFactory());
    }

    /**
     * Handshake with the node at {@code address}.
     *
     * @param address the node's control-plane address.
     * @param hello   what this client offers (protocol version, transports, credential).
     * @param timeout bound on connecting and on the answer.
     * @return the node's WELCOME.
     * @throws KvException {@link KvError#AUTHENTICATION_FAILED} or {@link KvError#REJECTED} with the server's
     *                     message; {@link KvError#TIMED_OUT},
     *                     {@link KvError#CONNECTION_FAILED} or {@link KvError#PROTOCOL_ERROR} otherwise.
     */
    public Welcome handshake(final HostPort address, final Hello hello, final Duration timeout)
    {
        final ControlFrame frame = login == null ? exchange(address, hello, timeout, "the handshake", done()) :
            loggingIn(address, hello, timeout, "the handshake", null);
        if (frame instanceof Welcome welcome)
        {
            return welcome;
        }
        if (frame instanceof Reject reject)
        {
            throw KvException.of(reject.status() == Status.UNAUTHENTICATED ? KvError.AUTHENTICATION_FAILED :
                KvError.REJECTED, "node " + address + " rejected the handshake: " + reject.status() + ": " +
                reject.message());
        }
        throw KvException.of(KvError.PROTOCOL_ERROR, "node " + address + " answered HELLO with " +
            frame.getClass().getSimpleName());
    }

    /**
     * Send one administration command to the node at {@code address} ({@code rdmakv cluster ...}).
     *
     * @return the node's answer (not ok when it refused or failed the command).
     * @throws KvException as {@link #handshake}.
     */
    public AdminReply admin(final HostPort address, final Admin command, final Duration timeout)
    {
        final ControlFrame frame = login == null ? exchange(address, command, timeout, "the command", done()) :
            loggingIn(address, new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of("tcp"), new byte[0]), timeout,
                "the command", new Admin(new byte[0], command.command()));
        if (frame instanceof AdminReply reply)
        {
            return reply;
        }
        if (frame instanceof Reject reject)
        {
            throw KvException.of(reject.status() == Status.UNAUTHENTICATED ? KvError.AUTHENTICATION_FAILED :
                reject.status() == Status.FORBIDDEN ? KvError.FORBIDDEN : KvError.REJECTED,
                "node " + address + " rejected the command: " + reject.status() + ": " + reject.message());
        }
        throw KvException.of(KvError.PROTOCOL_ERROR, "node " + address + " answered ADMIN with " +
            frame.getClass().getSimpleName());
    }

    /**
     * What to send on an answer: the next frame, or null when {@code received} is the answer. May throw a
     * {@link KvException} (the exchange fails with it).
     */
    @FunctionalInterface
    private interface Conversation
    {
        ControlFrame next(ControlFrame received);
    }

    /** One frame out, the first answer is the answer. */
    private static Conversation done()
    {
        return received -> null;
    }

    /**
     * HELLO with the login's SCRAM client-first message, the proof for the challenge, the node's signature checked,
     * then the WELCOME is the answer, or {@code then} goes out on the same connection and its answer is.
     */
    private ControlFrame loggingIn(final HostPort address, final Hello hello, final Duration timeout,
        final String what, final ControlFrame then)
    {
        final ScramClient scram = login.scram();
        final boolean[] proved = new boolean[1];
        final boolean[] verified = new boolean[1];
        try
        {
            return exchange(address, hello.withScram(scram.clientFirst()), timeout, what, received ->
            {
                if (received instanceof ScramMessage message)
                {
                    try
                    {
                        if (!proved[0])
                        {
                            proved[0] = true;
                            return new ScramMessage(scram.clientFinal(message.message()));
                        }
                        scram.verifyServerFinal(message.message());
                        verified[0] = true;
                        return NOTHING; // the WELCOME follows
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        throw KvException.of(KvError.AUTHENTICATION_FAILED, "node " + address + ": " +
                            ex.getMessage());
                    }
                }
                if (received instanceof Welcome && !verified[0])
                {
                    // Only a node that holds the user's ServerKey can sign the exchange: one that welcomes without
                    // it (an open node, or one impersonating a node) is not who this client logs in to.
                    throw KvException.of(KvError.AUTHENTICATION_FAILED, "node " + address + " welcomed user " +
                        login.user() + " without a SCRAM exchange: it has no users (auth.usersFile), and a node " +
                        "that does not prove it holds the user's key is not trusted");
                }
                if (received instanceof Welcome && then != null)
                {
                    return then;
                }
                return null;
            });
        }
        finally
        {
            scram.clear();
        }
    }

    /** {@link Conversation#next}: keep reading, send nothing. */
    private static final ControlFrame NOTHING = new ScramMessage("");

    /** One frame out and what the conversation sends on each answer, on a fresh connection. */
    private ControlFrame exchange(final HostPort address, final ControlFrame request, final Duration timeout,
        final String what, final Conversation conversation)
    {
        final CompletableFuture<ControlFrame> answer = new CompletableFuture<>();
        final long timeoutMillis = Math.max(1, timeout.toMillis());
        final Bootstrap bootstrap = new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)Math.min(Integer.MAX_VALUE, timeoutMillis))
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(final SocketChannel ch)
                {
                    if (tls != null)
                    {
                        ch.pipeline().addLast(tls.newHandler(ch.alloc(), address.host(), address.port()));
                    }
                    ch.pipeline().addLast(
                        new LengthFieldBasedFrameDecoder(LENGTH_PREFIX_ORDER,
                            ControlFrameCodec.MAX_FRAME_LENGTH + LENGTH_PREFIX_BYTES, 0, LENGTH_PREFIX_BYTES, 0,
                            LENGTH_PREFIX_BYTES, true),
                        new LengthFieldPrepender(LENGTH_PREFIX_ORDER, LENGTH_PREFIX_BYTES, 0, false),
                        new AnswerHandler(answer, conversation));
                }
            });

        Channel channel = null;
        try
        {
            final ChannelFuture connect = bootstrap.connect(address.host(), address.port());
            if (!connect.await(timeoutMillis + 1000))
            {
                connect.cancel(false);
                throw KvException.of(KvError.TIMED_OUT, "no connection to " + address + " within " + timeout);
            }
            if (!connect.isSuccess())
            {
                throw KvException.of(KvError.CONNECTION_FAILED,
                    "cannot reach the control plane of " + address + ": " + describe(connect.cause()),
                    connect.cause());
            }
            channel = connect.channel();
            channel.writeAndFlush(channel.alloc().buffer().writeBytes(ControlFrameCodec.encode(request)));
            return answer.get(timeoutMillis, TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw KvException.of(KvError.TIMED_OUT,
                "node " + address + " did not answer " + what + " within " + timeout, ex);
        }
        catch (final ExecutionException ex)
        {
            final Throwable cause = ex.getCause();
            if (cause instanceof KvException kv)
            {
                throw KvException.of(kv.error(), kv.getMessage(), kv);
            }
            if (tls != null && tlsFailure(cause) != null)
            {
                throw KvException.of(KvError.CONNECTION_FAILED, TlsFailures.describe("node " + address,
                    tlsFailure(cause)), cause);
            }
            throw KvException.of(cause instanceof ProtocolException ? KvError.PROTOCOL_ERROR :
                KvError.CONNECTION_FAILED, what + " with " + address + " failed: " + describe(cause), cause);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw KvException.of(KvError.CLOSED, "interrupted during " + what + " with " + address, ex);
        }
        finally
        {
            if (channel != null)
            {
                channel.close();
            }
        }
    }

    @Override
    public void close()
    {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** The TLS error behind {@code t} (SSL, a plaintext answer, a close before the handshake ended), or null. */
    private static Throwable tlsFailure(final Throwable t)
    {
        for (Throwable c = t; c != null; c = c.getCause())
        {
            if (c instanceof SSLException || c instanceof TlsClosedException)
            {
                return c instanceof TlsClosedException ? c.getCause() : c;
            }
        }
        return null;
    }

    /** The connection closed before the TLS handshake ended (its cause: the handshake's, if any). */
    private static final class TlsClosedException extends RuntimeException
    {
        TlsClosedException(final Throwable cause)
        {
            super("closed during the TLS handshake", cause);
        }
    }

    private static String describe(final Throwable t)
    {
        if (t == null)
        {
            return "unknown cause";
        }
        if (t instanceof ConnectException)
        {
            return "connection refused (is a server running there?)";
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }

    /** Decodes the one answer frame; anything else (garbage, early close) fails the handshake with a reason. */
    private static final class AnswerHandler extends SimpleChannelInboundHandler<ByteBuf>
    {
        private final CompletableFuture<ControlFrame> answer;
        private final Conversation conversation;

        AnswerHandler(final CompletableFuture<ControlFrame> answer, final Conversation conversation)
        {
            this.answer = answer;
            this.conversation = conversation;
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame)
        {
            final byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            try
            {
                final ControlFrame received = ControlFrameCodec.decode(bytes);
                final ControlFrame next = received instanceof Reject ? null : conversation.next(received);
                if (next == NOTHING)
                {
                    return;
                }
                if (next != null)
                {
                    ctx.writeAndFlush(ctx.alloc().buffer().writeBytes(ControlFrameCodec.encode(next)));
                    return;
                }
                answer.complete(received);
            }
            catch (final ProtocolException | KvException ex)
            {
                answer.completeExceptionally(ex);
            }
            ctx.close();
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx)
        {
            final SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            if (ssl != null && !ssl.handshakeFuture().isSuccess())
            {
                answer.completeExceptionally(new TlsClosedException(ssl.handshakeFuture().cause()));
                return;
            }
            answer.completeExceptionally(
                KvException.of(KvError.CONNECTION_FAILED, "the node closed the control connection without answering"));
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            answer.completeExceptionally(cause);
            ctx.close();
        }
    }
}
