package io.rdmakv.transport.verbs;

import io.netty.channel.Channel;
import io.rdmakv.transport.Listener;

import java.net.InetSocketAddress;

/** A bound TCP control-plane listener; accepted connections become verbs endpoints of its worker. */
final class VerbsListener implements Listener
{
    private final Channel channel;

    VerbsListener(final Channel channel)
    {
        this.channel = channel;
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return (InetSocketAddress)channel.localAddress();
    }

    @Override
    public void close()
    {
        channel.close().syncUninterruptibly();
    }
}
