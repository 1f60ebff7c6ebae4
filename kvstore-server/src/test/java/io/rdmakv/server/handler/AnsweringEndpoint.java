package io.rdmakv.server.handler;

import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.Worker;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.net.InetSocketAddress;

/**
 * An endpoint for driving the request thread's classes in one thread without a transport: every message the node
 * sends it is a RESPONSE, validated and handed to {@link #onResponse} (valid during the call); nothing else is used.
 */
public abstract class AnsweringEndpoint implements Endpoint
{
    private final ResponseFlyweight response = new ResponseFlyweight();

    /** A response the node sent to this endpoint. */
    protected abstract void onResponse(ResponseFlyweight response);

    @Override
    public long send(final DirectBuffer buffer, final int offset, final int length, final CompletionHandler handler)
    {
        onResponse(response.wrap(buffer, offset, length).validate());
        return 0;
    }

    @Override
    public long read(final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
    {
        throw new UnsupportedOperationException("the server never reads from clients");
    }

    @Override
    public boolean isConnected()
    {
        return true;
    }

    @Override
    public InetSocketAddress remoteAddress()
    {
        return new InetSocketAddress("127.0.0.1", 1);
    }

    @Override
    public int outstanding()
    {
        return 0;
    }

    @Override
    public Worker worker()
    {
        return null;
    }

    @Override
    public void close()
    {
    }
}
