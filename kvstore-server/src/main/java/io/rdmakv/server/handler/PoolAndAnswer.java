package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;

/** A finished write on this node: pool update (the one writer of the pool is this thread), then the answer. */
final class PoolAndAnswer implements WriteOutcome
{
    private final PoolIndex index;
    private final ServerCounters counters;
    private final ResponseSender responses;
    /** A batch entry's key (reused). */
    private final HashedKey entryKey = new HashedKey();

    PoolAndAnswer(final PoolIndex index, final ServerCounters counters, final ResponseSender responses)
    {
        this.index = index;
        this.counters = counters;
        this.responses = responses;
    }

    @Override
    public void putDurable(final Endpoint endpoint, final long correlationId, final HashedKey key,
        final DirectBuffer value, final int valueIndex, final int valueLength)
    {
        long version = 0;
        // The value is the write's durable record (ValueRecord): the extent carries its data version and expiry.
        if (index.putRecord(key, value, valueIndex, valueLength, true) == PoolIndex.STORED)
        {
            version = index.lastVersion();
        }
        else
        {
            counters.increment(ServerCounter.NOT_CACHED);
        }
        final boolean counter = (ValueRecord.flags(value, valueIndex) & ValueRecord.FLAG_COUNTER) != 0;
        responses.answerWritten(endpoint, correlationId, version, version != 0 ? index.lastEntry() : 0,
            ValueRecord.dataVersion(value, valueIndex), value, valueIndex + ValueRecord.HEADER_LENGTH,
            counter ? valueLength - ValueRecord.HEADER_LENGTH : 0);
    }

    @Override
    public void deleteDurable(final Endpoint endpoint, final long correlationId, final HashedKey key,
        final boolean existed)
    {
        index.remove(key);
        if (!existed)
        {
            counters.increment(ServerCounter.DELETES_NOT_FOUND);
        }
        responses.answer(endpoint, correlationId, existed ? Status.OK : Status.NOT_FOUND, 0, 0);
    }

    /**
     * Each entry's pool update in entry order (a PUT placed, a DELETE removed), then one answer. A one-sided reader
     * sees each key change atomically, not the batch: it may read one key of it new and another still old while this
     * loop runs (docs/data-path.md, "Atomic batches").
     */
    @Override
    public void batchDurable(final Endpoint endpoint, final long correlationId, final KeyBatch batch)
    {
        for (int i = 0; i < batch.count(); i++)
        {
            final HashedKey key = batch.key(i, entryKey);
            if (!batch.isPut(i))
            {
                index.remove(key);
            }
            else if (index.putRecord(key, batch.buffer(), batch.valueIndex(i), batch.valueLength(i), true) !=
                PoolIndex.STORED)
            {
                counters.increment(ServerCounter.NOT_CACHED);
            }
        }
        responses.answer(endpoint, correlationId, Status.OK, 0, 0);
    }

    @Override
    public void failed(final Endpoint endpoint, final long correlationId, final Status status, final String reason)
    {
        if (status == Status.STORE_ERROR || status == Status.DISK_FULL)
        {
            responses.answerStoreFailure(endpoint, correlationId, status, reason);
            return;
        }
        if (status == Status.WRONG_NODE)
        {
            counters.increment(ServerCounter.WRONG_NODE); // the reason is the owner's host:port, as routing's
        }
        responses.answerError(endpoint, correlationId, status, reason);
    }

    @Override
    public void read(final Endpoint endpoint, final long correlationId, final byte[] value, final long dataVersion)
    {
        if (value == null)
        {
            counters.increment(ServerCounter.GETS_RPC_NOT_FOUND);
            responses.answer(endpoint, correlationId, Status.NOT_FOUND, 0, 0);
            return;
        }
        responses.sendValue(endpoint, correlationId, value, dataVersion);
    }

    @Override
    public void unwritten(final Endpoint endpoint, final long correlationId, final Status status,
        final long dataVersion, final long expiryMillis, final String reason)
    {
        if (reason != null)
        {
            responses.answerError(endpoint, correlationId, status, reason);
        }
        else if (status == Status.OK)
        {
            responses.answerExpiry(endpoint, correlationId, dataVersion, expiryMillis);
        }
        else if (status == Status.CONDITION_FAILED)
        {
            responses.answerVersion(endpoint, correlationId, status, dataVersion);
        }
        else
        {
            responses.answer(endpoint, correlationId, status, 0, 0);
        }
    }
}
