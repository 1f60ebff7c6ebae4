package io.rdmakv.transport;

import java.net.InetSocketAddress;

/** A bound listening address of a worker. */
public interface Listener extends AutoCloseable
{
    /** The address actually bound (with the real port when 0 was asked for). */
    InetSocketAddress localAddress();

    @Override
    void close();
}
