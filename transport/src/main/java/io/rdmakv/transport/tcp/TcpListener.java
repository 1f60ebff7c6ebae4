package io.rdmakv.transport.tcp;

import io.netty.channel.Channel;
import io.rdmakv.transport.Listener;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** A bound server channel of a {@link TcpWorker}. */
final class TcpListener implements Listener
{
    private final Channel serverChannel;
    private final TcpWorker worker;

    TcpListener(final Channel serverChannel, final TcpWorker worker)
    {
        this.serverChannel = serverChannel;
        this.worker = worker;
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return (InetSocketAddress)serverChannel.localAddress();
    }

    @Override
    public void close()
    {
        final io.netty.channel.ChannelFuture closing = serverChannel.close();
        if (!serverChannel.eventLoop().inEventLoop())
        {
            closing.awaitUninterruptibly(5, TimeUnit.SECONDS); // blocking on the loop itself is not allowed
        }
        worker.removeListener(this);
    }
}
