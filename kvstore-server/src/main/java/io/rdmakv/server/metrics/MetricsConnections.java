package io.rdmakv.server.metrics;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The metrics port's connection budget: at most {@code max} connections open; a new one beyond that closes the one
 * that has waited longest since its last request, so a flood of idle connections neither exhausts the node's file
 * descriptors (which its data and control ports need) nor locks out a scraper, which reconnects. All child channels
 * are served by one event loop, so the bookkeeping needs no lock.
 */
@ChannelHandler.Sharable
final class MetricsConnections extends ChannelInboundHandlerAdapter
{
    private final int max;
    /** Open connections, the one idle longest first (a request moves its connection to the end). */
    private final LinkedHashSet<Channel> open = new LinkedHashSet<>();
    private final AtomicLong shed = new AtomicLong();

    MetricsConnections(final int max)
    {
        this.max = max;
    }

    /** Connections closed to make room, since start. */
    long shed()
    {
        return shed.get();
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) throws Exception
    {
        open.add(ctx.channel());
        if (open.size() > max)
        {
            final Iterator<Channel> oldest = open.iterator();
            final Channel victim = oldest.next();
            oldest.remove();
            shed.incrementAndGet();
            victim.close();
        }
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) throws Exception
    {
        if (open.remove(ctx.channel()))
        {
            open.add(ctx.channel());
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception
    {
        open.remove(ctx.channel());
        super.channelInactive(ctx);
    }
}
