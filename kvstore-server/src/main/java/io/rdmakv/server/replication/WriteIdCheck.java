package io.rdmakv.server.replication;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.server.handler.KeyBatch;
import io.rdmakv.server.handler.WritePath;
import io.rdmakv.server.handler.RecordWrites;
import io.rdmakv.server.handler.WritePathDecorator;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;

/**
 * The client writes' check of their write ids ({@link WriteIds}): a write not seen before goes on to the path below
 * with its id current (a replicating path copies it into the REPLICATEs); a retry is answered with the first
 * attempt's outcome (now, or when it is known) and a write beyond the bounds is refused, neither handed on.
 * Request thread only.
 */
final class WriteIdCheck extends WritePathDecorator
{
    private final WriteIds writeIds;

    WriteIdCheck(final WritePath next, final WriteIds writeIds)
    {
        super(next);
        this.writeIds = writeIds;
    }

    @Override
    public void put(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key, final DirectBuffer value, final int valueIndex, final int valueLength)
    {
        if (writeIds.begin(endpoint, correlationId, request, System.nanoTime()) != WriteIds.Start.APPLY)
        {
            return; // a retry (answered now or with its first attempt's outcome) or refused: WriteIds answers
        }
        next.put(endpoint, correlationId, request, key, value, valueIndex, valueLength);
        writeIds.endCurrent();
    }

    @Override
    public void recordWrite(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key, final RecordWrites.Decision decision)
    {
        if (writeIds.begin(endpoint, correlationId, request, System.nanoTime()) != WriteIds.Start.APPLY)
        {
            return; // a retry is answered as its first attempt was: the decision is not taken again
        }
        next.recordWrite(endpoint, correlationId, request, key, decision);
        writeIds.endCurrent();
    }

    /** A batch is one write: one write id, answered once; a retry never applies it again. */
    @Override
    public void batch(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final KeyBatch batch)
    {
        if (writeIds.begin(endpoint, correlationId, request, System.nanoTime()) != WriteIds.Start.APPLY)
        {
            return; // a retry (answered now or with its first attempt's outcome) or refused: WriteIds answers
        }
        next.batch(endpoint, correlationId, request, batch);
        writeIds.endCurrent();
    }

    @Override
    public void delete(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key)
    {
        if (writeIds.begin(endpoint, correlationId, request, System.nanoTime()) != WriteIds.Start.APPLY)
        {
            return; // a retry (answered now or with its first attempt's outcome) or refused: WriteIds answers
        }
        next.delete(endpoint, correlationId, request, key);
        writeIds.endCurrent();
    }
}
