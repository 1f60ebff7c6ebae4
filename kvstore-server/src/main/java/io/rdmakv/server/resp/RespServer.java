package io.rdmakv.server.resp;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.redis.FixedRedisMessagePool;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The RESP listener ({@code resp.port}): a Netty server whose one event loop decodes Redis commands (Netty's
 * {@code RedisDecoder}, bounded by {@link RespFrameGuard}) and answers them ({@link RespConnection}); key commands
 * reach the node's request thread as requests of an attached data endpoint ({@link RespEndpoint}).
 *
 * <pre>
 *   pipeline: RedisDecoder(maxInlineBytes) -> RespFrameGuard(bulk, arguments) -> RedisBulkStringAggregator
 *             -> RedisArrayAggregator(maxArguments, depth 1) -> RespConnection
 * </pre>
 */
public final class RespServer implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(RespServer.class);

    private final RespSettings settings;
    private final RespNode node;
    private EventLoopGroup group;
    private ChannelGroup channels;
    private Channel serverChannel;

    public RespServer(final RespSettings settings, final RespNode node)
    {
        this.settings = settings;
        this.node = node;
    }

    /**
     * Bind and start accepting.
     *
     * @return the bound address.
     * @throws IllegalStateException if the port cannot be bound (the message names it).
     */
    public InetSocketAddress start()
    {
        group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("rdmakv-resp", true),
            NioIoHandler.newFactory());
        channels = new DefaultChannelGroup("resp", GlobalEventExecutor.INSTANCE);
        final RespIntrospection introspection = new RespIntrospection(node, settings.port());
        final RespCommands commands = new RespCommands(settings, introspection, new RespCluster(node));
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
                    channels.add(ch);
                    ch.pipeline()
                        .addLast("decoder", new RedisDecoder(settings.maxInlineBytes(), FixedRedisMessagePool.INSTANCE,
                            true))
                        .addLast("guard", new RespFrameGuard(settings.maxBulkBytes(), settings.maxArguments()))
                        .addLast("bulk", new RedisBulkStringAggregator())
                        .addLast("array", new RedisArrayAggregator(settings.maxArguments(), 1))
                        .addLast("connection", new RespConnection(node, settings, commands, introspection));
                }
            });
        try
        {
            serverChannel = bootstrap.bind(new InetSocketAddress(settings.host(), settings.port())).sync().channel();
        }
        catch (final Exception ex)
        {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("cannot bind the RESP port " + settings.host() + ":" + settings.port() +
                ": " + ex.getMessage(), ex);
        }
        final InetSocketAddress bound = (InetSocketAddress)serverChannel.localAddress();
        LOG.info("RESP listening on {} (RESP2, RESP3 by HELLO 3; credential {}; bulk strings up to {} B, inline " +
            "commands up to {} B, {} arguments, {} replies pending per connection)", bound,
            settings.secret() == null ? "not required" : "required (AUTH)", settings.maxBulkBytes(),
            settings.maxInlineBytes(), settings.maxArguments(), settings.maxPendingReplies());
        return bound;
    }

    /** The bound address, or null before {@link #start()}. */
    public InetSocketAddress localAddress()
    {
        return serverChannel == null ? null : (InetSocketAddress)serverChannel.localAddress();
    }

    /** Close every connection and stop the event loop. Idempotent. */
    @Override
    public void close()
    {
        if (group == null)
        {
            return;
        }
        if (serverChannel != null)
        {
            serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        group = null;
    }
}
