package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;

/**
 * A {@link WritePath} that decides something about each write before it hands it to the path below (Netty's
 * forwarding handlers): everything else goes straight to that path. A decorator refuses a write by answering it
 * itself and not handing it on. Request thread only.
 */
public abstract class WritePathDecorator implements WritePath
{
    /** The path the writes this decorator lets through go to. */
    protected final WritePath next;

    protected WritePathDecorator(final WritePath next)
    {
        this.next = next;
    }

    @Override
    public void put(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key, final DirectBuffer value, final int valueIndex, final int valueLength)
    {
        next.put(endpoint, correlationId, request, key, value, valueIndex, valueLength);
    }

    @Override
    public void delete(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key)
    {
        next.delete(endpoint, correlationId, request, key);
    }

    @Override
    public void batch(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final KeyBatch batch)
    {
        next.batch(endpoint, correlationId, request, batch);
    }

    @Override
    public void recordWrite(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key, final RecordWrites.Decision decision)
    {
        next.recordWrite(endpoint, correlationId, request, key, decision);
    }

    @Override
    public void answerUnwritten(final Endpoint endpoint, final long correlationId, final HashedKey key,
        final Status status, final long dataVersion, final long expiryMillis, final String reason)
    {
        next.answerUnwritten(endpoint, correlationId, key, status, dataVersion, expiryMillis, reason);
    }

    @Override
    public boolean holdsUnansweredWrites()
    {
        return next.holdsUnansweredWrites();
    }

    @Override
    public void answerRead(final Endpoint endpoint, final long correlationId, final HashedKey key, final byte[] value,
        final long dataVersion)
    {
        next.answerRead(endpoint, correlationId, key, value, dataVersion);
    }

    @Override
    public int flush()
    {
        return next.flush();
    }

    @Override
    public boolean holdsWriteFor(final Endpoint endpoint, final HashedKey key)
    {
        return next.holdsWriteFor(endpoint, key);
    }

    @Override
    public int doWork()
    {
        return next.doWork();
    }

    @Override
    public int inFlightWrites()
    {
        return next.inFlightWrites();
    }

    @Override
    public void close()
    {
        next.close();
    }
}
