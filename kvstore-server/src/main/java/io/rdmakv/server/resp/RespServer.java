package io.rdmakv.server.resp;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
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
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.rdmakv.transport.tls.ReloadingTls;
import io.rdmakv.transport.tls.TlsGate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The RESP listener ({@code resp.port}): a Netty server that decodes Redis commands ({@link RespDecoder}, bounded at
 * each header) and answers them ({@link RespConnection}); key commands reach the node's request
 * handling as requests of an attached data endpoint ({@link RespEndpoint}). Where its connections live is the
 * {@link Host}'s choice: on a tcp node, the node's own event loop, which is its request thread (a command is handled
 * where it is read, as a native request is); elsewhere an event loop of its own, which reaches the request thread
 * through the node's hand-off.
 *
 * <p>With the node's TLS contexts ({@code tls.certFile}) the port speaks only TLS, as Redis's {@code tls-port}: each
 * connection starts with a {@link TlsGate} that looks at the first bytes, puts the node's {@code SslHandler} (the
 * contexts as the files are at the accept: reloaded without a restart) in its place for a TLS client, and answers a
 * plaintext client one {@code -ERR} line saying the port wants TLS, then closes.
 *
 * <pre>
 *   pipeline: [TlsGate -> SslHandler] -> RespDecoder(bulk, arguments, inline: byte[][] per command) -> RespConnection
 * </pre>
 */
public final class RespServer implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(RespServer.class);

    /** Where the RESP port's connections live. */
    public interface Host
    {
        /** Bind {@code address}; each accepted connection gets {@code initializer}. */
        Channel bind(InetSocketAddress address, ChannelInitializer<SocketChannel> initializer) throws Exception;

        /** After the listening channel and the connections are closed. */
        void close();

        /** Where the connections live, for the log. */
        String where();
    }

    private final RespSettings settings;
    private final RespNode node;
    private final Host host;
    private final ReloadingTls tls;
    private ChannelGroup channels;
    private Channel serverChannel;
    private boolean started;

    /** A plaintext listener. @param host where connections live: {@link #ownLoop()}, or the request thread's loop. */
    public RespServer(final RespSettings settings, final RespNode node, final Host host)
    {
        this(settings, node, host, null);
    }

    /**
     * @param host where connections live: {@link #ownLoop()}, or a loop the node's request thread runs.
     * @param tls  the node's TLS contexts (the port speaks TLS only), or null for plaintext.
     */
    public RespServer(final RespSettings settings, final RespNode node, final Host host, final ReloadingTls tls)
    {
        this.settings = settings;
        this.node = node;
        this.host = host;
        this.tls = tls;
    }

    /** The request thread's loop: {@code bootstrap} comes configured from the node's worker (its group, its channel). */
    public static Host on(final ServerBootstrap bootstrap)
    {
        return new Host()
        {
            @Override
            public Channel bind(final InetSocketAddress address, final ChannelInitializer<SocketChannel> initializer)
                throws Exception
            {
                return bootstrap.childHandler(initializer).bind(address).sync().channel();
            }

            @Override
            public void close()
            {
                // the loop is the worker's: it stops with the worker
            }

            @Override
            public String where()
            {
                return "connections on the node's request thread (its event loop)";
            }
        };
    }

    /** An event loop of the listener's own (NIO, one thread), shut down with it. */
    public static Host ownLoop()
    {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("rdmakv-resp", true),
            NioIoHandler.newFactory());
        return new Host()
        {
            @Override
            public Channel bind(final InetSocketAddress address, final ChannelInitializer<SocketChannel> initializer)
                throws Exception
            {
                return new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(initializer)
                    .bind(address).sync().channel();
            }

            @Override
            public void close()
            {
                group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            }

            @Override
            public String where()
            {
                return "connections on an event loop of their own, handed to the request thread";
            }
        };
    }

    /**
     * Bind and start accepting.
     *
     * @return the bound address.
     * @throws IllegalStateException if the port cannot be bound (the message names it).
     */
    public InetSocketAddress start()
    {
        started = true;
        channels = new DefaultChannelGroup("resp", GlobalEventExecutor.INSTANCE);
        final RespIntrospection introspection = new RespIntrospection(node, settings.port());
        final RespCommands commands = new RespCommands(settings, introspection, new RespCluster(node));
        final ChannelInitializer<SocketChannel> initializer = new ChannelInitializer<>()
        {
            @Override
            protected void initChannel(final SocketChannel ch)
            {
                channels.add(ch);
                if (tls != null)
                {
                    ch.pipeline().addLast("gate", TlsGate.tlsOnly(tls.serverContext().newHandler(ch.alloc()),
                        RespServer::refusePlaintext));
                }
                ch.pipeline()
                    .addLast("decoder", new RespDecoder(settings.maxBulkBytes(), settings.maxArguments(),
                        settings.maxInlineBytes()))
                    .addLast("connection", new RespConnection(node, settings, commands, introspection));
            }
        };
        try
        {
            serverChannel = host.bind(new InetSocketAddress(settings.host(), settings.port()), initializer);
        }
        catch (final Exception ex)
        {
            host.close();
            started = false;
            throw new IllegalStateException("cannot bind the RESP port " + settings.host() + ":" + settings.port() +
                ": " + ex.getMessage(), ex);
        }
        final InetSocketAddress bound = (InetSocketAddress)serverChannel.localAddress();
        LOG.info("RESP listening on {} ({}; {}; RESP2, RESP3 by HELLO 3; credential {}; bulk strings up to {} B, " +
            "inline commands up to {} B, {} arguments, {} replies pending per connection)", bound, host.where(),
            tls == null ? "plaintext" : "TLS only (TLSv1.3, the node's certificate)",
            settings.secret() == null ? "not required" : "required (AUTH)", settings.maxBulkBytes(),
            settings.maxInlineBytes(), settings.maxArguments(), settings.maxPendingReplies());
        return bound;
    }

    /**
     * A plaintext client on the TLS port: one RESP error it can show (redis-cli prints it), then the gate closes the
     * connection. Redis itself drops such a client without a word.
     */
    private static void refusePlaintext(final ChannelHandlerContext ctx, final String what)
    {
        LOG.debug("RESP: refused {} from {}", what, ctx.channel().remoteAddress());
        final ByteBuf out = ctx.alloc().buffer();
        RespReply.error(PLAINTEXT_REFUSED).write(out, 2);
        ctx.writeAndFlush(out);
    }

    /** What a plaintext client on the TLS port is told. */
    static final String PLAINTEXT_REFUSED = "ERR this RESP port speaks TLS only (TLSv1.3, as a Redis tls-port): " +
        "connect with TLS and the CA that signs the node's certificate (redis-cli --tls --cacert FILE)";

    /** The bound address, or null before {@link #start()}. */
    public InetSocketAddress localAddress()
    {
        return serverChannel == null ? null : (InetSocketAddress)serverChannel.localAddress();
    }

    /** Close every connection and stop the event loop. Idempotent. */
    @Override
    public void close()
    {
        if (!started)
        {
            return;
        }
        started = false;
        if (serverChannel != null)
        {
            serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        host.close();
    }
}
