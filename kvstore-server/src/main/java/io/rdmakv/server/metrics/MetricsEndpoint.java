package io.rdmakv.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The metrics port, on Netty (NIO, one accepting thread and one serving thread), so it accepts as fast as the data
 * ports and, under a flood of idle connections, keeps {@link #MAX_CONNECTIONS} of them and still answers:
 * <pre>
 *   GET /metrics        the registry's scrape in the format {@code Accept} asks for (Prometheus text 0.0.4 by
 *                       default, OpenMetrics, or Prometheus protobuf)
 *   GET /health/live    200 {"status":"live"} while the process serves HTTP at all
 *   GET /health/ready   200 {"status":"ready",...} or 503 {"status":"not_ready","reason":...} ({@link Readiness})
 * </pre>
 * Anything else is 404; only GET and HEAD are answered (405). A connection that sends nothing for
 * {@link #IDLE_SECONDS} is closed (a scraper's keep-alive connection is reused far more often).
 */
public final class MetricsEndpoint implements AutoCloseable
{
    public static final String PATH = "/metrics";
    public static final String LIVE = "/health/live";
    public static final String READY = "/health/ready";
    /** Connections idle longer than this are closed. */
    static final int IDLE_SECONDS = 300;
    /**
     * Connections held at most; a newer one closes the one idle longest ({@link MetricsConnections}). The data and
     * control ports' budget of unauthenticated connections has the same default.
     */
    static final int MAX_CONNECTIONS = 1024;
    /** Largest request accepted (headers included). */
    private static final int MAX_REQUEST_BYTES = 16 * 1024;

    private final EventLoopGroup acceptor;
    private final EventLoopGroup server;
    private final Channel channel;

    private MetricsEndpoint(final EventLoopGroup acceptor, final EventLoopGroup server, final Channel channel)
    {
        this.acceptor = acceptor;
        this.server = server;
        this.channel = channel;
    }

    /**
     * Bind and serve.
     *
     * @throws UncheckedIOException when the port cannot be bound (the message names it).
     */
    public static MetricsEndpoint start(final InetSocketAddress bind, final PrometheusMeterRegistry registry,
        final Runnable beforeScrape, final Readiness readiness)
    {
        final EventLoopGroup acceptor = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("rdmakv-metrics-accept", true), NioIoHandler.newFactory());
        final EventLoopGroup server = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("rdmakv-metrics", true), NioIoHandler.newFactory());
        final MetricsConnections connections = new MetricsConnections(MAX_CONNECTIONS);
        FunctionCounter.builder("rdmakv.metrics.connections.shed", connections, MetricsConnections::shed)
            .description("Connections to the metrics port closed to keep it under " + MAX_CONNECTIONS +
                " (the one idle longest goes first)")
            .register(registry);
        try
        {
            final Channel channel = new ServerBootstrap().group(acceptor, server)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childHandler(new ChannelInitializer<SocketChannel>()
                {
                    @Override
                    protected void initChannel(final SocketChannel ch)
                    {
                        ch.pipeline().addLast(connections, new IdleStateHandler(0, 0, IDLE_SECONDS, TimeUnit.SECONDS),
                            new HttpServerCodec(), new HttpObjectAggregator(MAX_REQUEST_BYTES),
                            new Handler(registry, beforeScrape, readiness));
                    }
                })
                .bind(bind).syncUninterruptibly().channel();
            return new MetricsEndpoint(acceptor, server, channel);
        }
        catch (final RuntimeException ex)
        {
            acceptor.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            server.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            final IOException io = new IOException(ex.getMessage(), ex);
            throw new UncheckedIOException("cannot bind the metrics endpoint to " + bind + ": " + ex.getMessage(), io);
        }
    }

    public InetSocketAddress address()
    {
        return (InetSocketAddress)channel.localAddress();
    }

    @Override
    public void close()
    {
        channel.close().syncUninterruptibly();
        acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        server.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** One connection's requests, answered on the serving thread in arrival order. */
    private static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest>
    {
        private final PrometheusMeterRegistry registry;
        private final Runnable beforeScrape;
        private final Readiness readiness;

        Handler(final PrometheusMeterRegistry registry, final Runnable beforeScrape, final Readiness readiness)
        {
            this.registry = registry;
            this.beforeScrape = beforeScrape;
            this.readiness = readiness;
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final FullHttpRequest request) throws IOException
        {
            final FullHttpResponse response = answer(request);
            final boolean head = request.method().equals(HttpMethod.HEAD);
            HttpUtil.setContentLength(response, response.content().readableBytes());
            if (head)
            {
                response.content().clear();
            }
            final boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess();
            HttpUtil.setKeepAlive(response, keepAlive);
            if (keepAlive)
            {
                ctx.writeAndFlush(response, ctx.voidPromise());
            }
            else
            {
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            }
        }

        private FullHttpResponse answer(final FullHttpRequest request) throws IOException
        {
            if (!request.decoderResult().isSuccess())
            {
                return text(HttpResponseStatus.BAD_REQUEST, "bad request\n");
            }
            final String path = new QueryStringDecoder(request.uri()).path();
            if (!path.equals(PATH) && !path.equals(LIVE) && !path.equals(READY))
            {
                return text(HttpResponseStatus.NOT_FOUND, "not found: the metrics are at " + PATH + ", health at " +
                    LIVE + " and " + READY + "\n");
            }
            if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD))
            {
                return text(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET or HEAD only\n");
            }
            if (path.equals(LIVE))
            {
                return json(HttpResponseStatus.OK, "{\"status\":\"live\"}\n");
            }
            if (path.equals(READY))
            {
                final Readiness.State state = readiness.state();
                return json(state.ready() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                    state.toJson() + "\n");
            }
            return scrape(request.headers().get(HttpHeaderNames.ACCEPT));
        }

        private FullHttpResponse scrape(final String accept) throws IOException
        {
            final FullHttpResponse response = new DefaultFullHttpResponse(request11(), HttpResponseStatus.OK,
                Unpooled.buffer(64 * 1024));
            beforeScrape.run();
            try (ByteBufOutputStream out = new ByteBufOutputStream(response.content()))
            {
                registry.scrape(out, accept == null ? "text/plain; version=0.0.4; charset=utf-8" : accept);
            }
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, negotiated(accept));
            return response;
        }

        @Override
        public void userEventTriggered(final ChannelHandlerContext ctx, final Object event) throws Exception
        {
            if (event instanceof IdleStateEvent)
            {
                ctx.close();
                return;
            }
            super.userEventTriggered(ctx, event);
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            ctx.close(); // a peer's reset or garbage: nothing to answer, nothing worth a log line per connection
        }
    }

    private static io.netty.handler.codec.http.HttpVersion request11()
    {
        return io.netty.handler.codec.http.HttpVersion.HTTP_1_1;
    }

    private static FullHttpResponse text(final HttpResponseStatus status, final String body)
    {
        return body(status, "text/plain; charset=utf-8", body);
    }

    private static FullHttpResponse json(final HttpResponseStatus status, final String body)
    {
        return body(status, HttpHeaderValues.APPLICATION_JSON + "; charset=utf-8", body);
    }

    private static FullHttpResponse body(final HttpResponseStatus status, final String type, final String body)
    {
        final FullHttpResponse response = new DefaultFullHttpResponse(request11(), status,
            Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
        return response;
    }

    /** The content type the registry wrote for {@code accept} (its writers choose the same way). */
    private static String negotiated(final String accept)
    {
        if (accept != null && accept.contains("application/vnd.google.protobuf") &&
            accept.contains("io.prometheus.client.MetricFamily"))
        {
            return "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";
        }
        if (accept != null && accept.contains("application/openmetrics-text"))
        {
            return "application/openmetrics-text; version=1.0.0; charset=utf-8";
        }
        return "text/plain; version=0.0.4; charset=utf-8";
    }
}
