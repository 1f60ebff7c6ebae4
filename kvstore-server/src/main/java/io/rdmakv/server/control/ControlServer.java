package io.rdmakv.server.control;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.Reject;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.admission.AdmissionSettings;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.session.Access;
import io.rdmakv.server.session.UsersDirectory;
import io.rdmakv.transport.log.RateLimitedLog;
import io.rdmakv.transport.tls.ReloadingTls;
import io.rdmakv.transport.tls.TlsGate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The control-plane server (Netty): clients open a TCP connection to the control port, send HELLO, and get WELCOME
 * (everything needed to read the pool one-sided and route keys) or REJECT followed by a close.
 *
 * <pre>
 *   frame on the wire:  | length u32 (LITTLE-endian, bytes that follow) | control frame (ControlFrameCodec) |
 *   pipeline:           TlsGate [-> SslHandler] -> LengthFieldBasedFrameDecoder(max) -> ControlHandler ;
 *                       LengthFieldPrepender(4, LE)
 * </pre>
 *
 * A frame longer than {@code maxFrameBytes}, a frame that does not decode, a frame other than HELLO, a wrong or missing
 * credential (when one is configured) and a connection that sends no HELLO within the handshake timeout all end with
 * REJECT (when the connection is still writable) and a close; none of them affects other connections. Connections
 * before a good HELLO are admitted within their own budget, which sheds its oldest rather than refuse a newcomer
 * ({@link ControlHandler}).
 */
public final class ControlServer implements AutoCloseable
{
    /** Bytes of the length prefix in front of every control frame. */
    public static final int LENGTH_PREFIX_BYTES = 4;
    /** Byte order of the length prefix (the whole protocol is little-endian). */
    public static final ByteOrder LENGTH_PREFIX_ORDER = ByteOrder.LITTLE_ENDIAN;

    private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);
    /** A peer decides how often a TLS mismatch happens: at most a burst of lines, then a count. */
    private static final RateLimitedLog REFUSED = RateLimitedLog.of(LOG);

    private final InetSocketAddress bindAddress;
    private final ControlSettings settings;
    private final BiFunction<Hello, Access, Welcome> welcome;
    private final ServerCounters counters;
    /** TLS 1.3 on every connection (its contexts follow the files), or null for plaintext. */
    private final ReloadingTls tls;
    private final AdminCommands admin;
    private EventLoopGroup group;
    private ChannelGroup channels;
    private Channel serverChannel;

    /**
     * @param welcome builds the WELCOME for an accepted HELLO, with a fresh session ticket (on the event loop;
     *                control path, may allocate); {@code null} when no ticket can be issued now (REJECT BUSY).
     */
    public ControlServer(
        final InetSocketAddress bindAddress, final ControlSettings settings, final Function<Hello, Welcome> welcome,
        final ServerCounters counters)
    {
        this(bindAddress, settings, (hello, access) -> welcome.apply(hello), AdminCommands.NONE, counters, null);
    }

    /** @param admin answers ADMIN frames ({@link AdminCommands#NONE}: every one is refused). */
    public ControlServer(
        final InetSocketAddress bindAddress, final ControlSettings settings, final Function<Hello, Welcome> welcome,
        final AdminCommands admin, final ServerCounters counters)
    {
        this(bindAddress, settings, (hello, access) -> welcome.apply(hello), admin, counters, null);
    }

    /**
     * @param admin answers ADMIN frames ({@link AdminCommands#NONE}: every one is refused); a node's answers as its
     *              cluster view allows (it starts after this server is bound).
     * @param tls   the contexts every connection speaks TLS with, from the files as they are at its accept, or null
     *              for plaintext; either way a peer of the other kind is refused with a plaintext REJECT
     *              ({@link TlsGate}).
     * @param welcome builds the WELCOME for an accepted HELLO with a fresh session ticket that carries what the
     *                handshake authenticated; {@code null} when no ticket can be issued now.
     */
    public ControlServer(
        final InetSocketAddress bindAddress, final ControlSettings settings,
        final BiFunction<Hello, Access, Welcome> welcome, final AdminCommands admin, final ServerCounters counters,
        final ReloadingTls tls)
    {
        this.bindAddress = bindAddress;
        this.settings = settings;
        this.welcome = welcome;
        this.admin = admin;
        this.counters = counters;
        this.tls = tls;
    }

    /**
     * Bind and start accepting.
     *
     * @return the bound address (with the real port when 0 was configured).
     * @throws IllegalStateException if the port cannot be bound (the message names it).
     */
    public InetSocketAddress start()
    {
        group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("rdmakv-control", true),
            NioIoHandler.newFactory());
        channels = new DefaultChannelGroup("control", GlobalEventExecutor.INSTANCE);
        // One loop accepts and serves every connection, so the shared admission state needs no lock.
        final ControlAdmission admission = new ControlAdmission(settings.admission(), settings.maxConnections());
        final ServerBootstrap bootstrap = new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(final SocketChannel ch)
                {
                    ch.pipeline()
                        .addLast("gate", tls == null ? TlsGate.plaintextOnly(ControlServer.this::refuse) :
                            TlsGate.tlsOnly(tls.serverContext().newHandler(ch.alloc()),
                            ControlServer.this::refuse))
                        .addLast("frames", new LengthFieldBasedFrameDecoder(LENGTH_PREFIX_ORDER,
                            settings.maxFrameBytes() + LENGTH_PREFIX_BYTES, 0, LENGTH_PREFIX_BYTES, 0,
                            LENGTH_PREFIX_BYTES, true))
                        .addLast("prefix", new LengthFieldPrepender(LENGTH_PREFIX_ORDER, LENGTH_PREFIX_BYTES, 0, false))
                        .addLast("handshake", new ControlHandler(settings, welcome, admin, counters, channels,
                            admission));
                }
            });
        try
        {
            serverChannel = bootstrap.bind(bindAddress).sync().channel();
        }
        catch (final Exception ex)
        {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("cannot bind the control port " + bindAddress + ": " + ex.getMessage(), ex);
        }
        final InetSocketAddress bound = (InetSocketAddress)serverChannel.localAddress();
        LOG.info("control plane listening on {} ({}, max frame {} B, credential {}, {} unauthenticated connections " +
            "at most, {} per source, {} ms to authenticate)", bound, tls == null ? "plaintext" : "TLSv1.3",
            settings.maxFrameBytes(),
            !settings.requiresCredential() ? "not required" : (settings.secret() != null ? "shared secret" : "") +
            (settings.secret() != null && settings.users() != null ? " or " : "") +
            (settings.users() != null ? "users (SCRAM-SHA-256" + (settings.certificateNamesUser() ?
            ", client certificates" : "") + ")" : ""), settings.admission().maxUnauthenticated(),
            settings.admission().maxUnauthenticatedPerSource(), settings.handshakeTimeout().toMillis());
        return bound;
    }

    /**
     * A peer of the other kind (plaintext on a TLS port, TLS on a plaintext one): a REJECT in plaintext that a
     * plaintext client reads as such and a TLS client as "not TLS", then the gate closes the connection.
     */
    private void refuse(final ChannelHandlerContext ctx, final String what)
    {
        counters.increment(ServerCounter.HANDSHAKE_REJECTS);
        REFUSED.warn("refused {} from {}", what, ctx.channel().remoteAddress());
        final byte[] frame = ControlFrameCodec.encode(new Reject(Status.MALFORMED, "refused " + what));
        ctx.writeAndFlush(ctx.alloc().buffer(LENGTH_PREFIX_BYTES + frame.length).writeIntLE(frame.length)
            .writeBytes(frame));
    }

    /** The bound address, or null before {@link #start()}. */
    public InetSocketAddress localAddress()
    {
        return serverChannel == null ? null : (InetSocketAddress)serverChannel.localAddress();
    }

    /** Stop accepting (close the listening socket) but keep established connections. */
    public void stopAccepting()
    {
        if (serverChannel != null)
        {
            serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    /** Close every connection and stop the event loop. Idempotent. */
    @Override
    public void close()
    {
        if (group == null)
        {
            return;
        }
        stopAccepting();
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        group = null;
    }

    /**
     * Settings of the control plane.
     *
     * @param maxFrameBytes     largest frame accepted (after the length prefix).
     * @param maxConnections    connections that got a WELCOME, open at once; beyond, a HELLO gets REJECT(BUSY).
     * @param secret            shared secret a HELLO must carry, or null when none is required.
     * @param users             the users a HELLO may log in as (SCRAM-SHA-256), or null for none.
     * @param certificateNamesUser whether a client certificate (verified, tls.clientAuth=required) whose subject CN
     *                          or a DNS/email subject alternative name is a user's name logs in as that user.
     * @param admission         the budget, per-source bound and deadline of connections before a good HELLO, and
     *                          the failed-credential throttle.
     */
    public record ControlSettings(int maxFrameBytes, int maxConnections, byte[] secret, AdmissionSettings admission,
        UsersDirectory users, boolean certificateNamesUser)
    {
        /** Settings with the shared secret only (no users). */
        public ControlSettings(final int maxFrameBytes, final int maxConnections, final byte[] secret,
            final AdmissionSettings admission)
        {
            this(maxFrameBytes, maxConnections, secret, admission, null, false);
        }

        /** Whether a HELLO needs a credential: a shared secret or a users file is configured. */
        public boolean requiresCredential()
        {
            return secret != null || users != null;
        }

        /** Time a new connection has to send a good HELLO, and a welcomed one may stay open. */
        public Duration handshakeTimeout()
        {
            return admission.handshakeTimeout();
        }
    }
}
