package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreException;
import io.rdmakv.server.store.StoreKeys;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;

/**
 * DEFAULT durability: RocksDB is written on the request thread (WAL write without fsync, which survives kill -9).
 * The PUTs of one progress step go as one batch ({@link PutBatch}) and are reported once it is written; a DELETE is
 * written inline from a direct scratch buffer, after the batch (it may delete a key a PUT of the batch wrote).
 *
 * <pre>
 *   put    -> PutBatch.add (staging copy) ... flush() / doWork() -> store.write(batch) -> outcome.putDurable each
 *   delete -> flush() -> exists? (RocksDB) -> store.delete -> outcome.deleteDurable(existed)
 *             (with records: the deletion and the records as one batch)
 *   batch  -> flush() -> every entry + the write's records in ONE WriteBatch -> store.write -> outcome.batchDurable
 * </pre>
 * The write's records ({@link DurableRecords}: its write id's answer, a replica's replication sequence) go into the
 * batch that writes it.
 * Inline writes keep the pool a subset of RocksDB, so a pool hit proves existence without a lookup.
 */
final class InlineBatchWritePath implements WritePath
{
    private final RocksStore store;
    private final WriteOutcome outcome;
    private final PutBatch puts;
    private final ByteBuffer keyScratch;
    private final DurableRecords records;
    /** A DELETE with records: the deletion (if the key existed) and the records, as one batch. */
    private final WriteBatch deleteBatch = new WriteBatch();
    private final UnsafeBuffer keyScratchBuffer;
    /** An atomic multi-key write's entries and records (one WAL write). */
    private final WriteBatch keyBatch = new WriteBatch();
    private final ByteBuffer batchKey;
    private final UnsafeBuffer batchKeyBuffer;
    private final ByteBuffer batchValue;
    private final HashedKey entryKey = new HashedKey();
    private int failBatchAfter = -1;

    /**
     * @param maxKeyBytes   longest key.
     * @param maxValueBytes longest value (sizes the batch's staging buffer).
     * @param wakeUp        wakes the request thread when a batch gets its first PUT (it commits at its duty cycle).
     */
    InlineBatchWritePath(final RocksStore store, final WriteOutcome outcome,
        final int maxKeyBytes, final int maxValueBytes, final Runnable wakeUp, final DurableRecords records)
    {
        this.store = store;
        this.records = records;
        this.outcome = outcome;
        this.puts = new PutBatch(store, Math.max(1 << 20, StoreKeys.PREFIX_LENGTH + maxKeyBytes + maxValueBytes),
            new Committer(), wakeUp, records);
        this.keyScratch = ByteBuffer.allocateDirect(StoreKeys.PREFIX_LENGTH + maxKeyBytes);
        this.keyScratchBuffer = new UnsafeBuffer(keyScratch);
        this.batchKey = ByteBuffer.allocateDirect(StoreKeys.PREFIX_LENGTH + maxKeyBytes);
        this.batchKeyBuffer = new UnsafeBuffer(batchKey);
        this.batchValue = ByteBuffer.allocateDirect(maxValueBytes);
    }

    @Override
    public void put(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key, final DirectBuffer value, final int valueIndex, final int valueLength)
    {
        puts.add(endpoint, correlationId, key, value, valueIndex, valueLength);
    }

    @Override
    public void delete(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key)
    {
        puts.commit();
        final boolean existed;
        try
        {
            // RocksDB, not the pool: the store holds every write this node accepted, while the pool follows a write
            // only once it is answered (on a primary, after its backups' acknowledgements). A pool hit for a key whose
            // DELETE is still in flight answered a second concurrent DELETE "found" (the fault set's history check).
            existed = store.contains(scratchKey(key));
            if (records.pending())
            {
                deleteWithRecords(key, existed);
            }
            else if (existed)
            {
                store.delete(scratchKey(key));
            }
        }
        catch (final StoreException ex)
        {
            outcome.failed(endpoint, correlationId, ResponseSender.storeStatus(ex), ex.getMessage());
            return;
        }
        outcome.deleteDurable(endpoint, correlationId, key, existed);
    }

    /**
     * An atomic multi-key write: the PUTs batched before it first (they were accepted before it), then every entry
     * and the write's records in ONE RocksDB write batch (one WAL record: after kill -9 all or none of it is there),
     * reported once. A failure (or {@link #failBatchAfter}, tests) leaves nothing of it in RocksDB.
     */
    @Override
    public void batch(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final KeyBatch batch)
    {
        puts.commit();
        try
        {
            for (int i = 0; i < batch.count(); i++)
            {
                if (i == failBatchAfter)
                {
                    throw new RocksDBException("injected failure before entry " + i);
                }
                final HashedKey key = batch.key(i, entryKey);
                final int length = StoreKeys.encode(key, batchKeyBuffer, 0);
                batchKey.limit(length).position(0);
                if (batch.isPut(i))
                {
                    batchValue.clear();
                    batch.buffer().getBytes(batch.valueIndex(i), batchValue, batch.valueLength(i));
                    batchValue.flip();
                    store.addPut(keyBatch, batchKey, batchValue);
                }
                else
                {
                    store.addDelete(keyBatch, batchKey);
                }
            }
            records.addTo(keyBatch, Status.OK);
            store.write(keyBatch);
        }
        catch (final RocksDBException | StoreException ex)
        {
            final StoreException failure = ex instanceof StoreException s ? s :
                new StoreException("batch write failed: " + ex.getMessage(), ex);
            outcome.failed(endpoint, correlationId, ResponseSender.storeStatus(failure), failure.getMessage());
            return;
        }
        finally
        {
            keyBatch.clear();
        }
        outcome.batchDurable(endpoint, correlationId, batch);
    }

    /** Tests: the next batches fail while adding entry {@code entry} (-1: never), nothing written. */
    void failBatchAfter(final int entry)
    {
        failBatchAfter = entry;
    }

    /** The deletion, if the key existed, and the records as one batch (one WAL write, like a lone delete). */
    private void deleteWithRecords(final HashedKey key, final boolean existed)
    {
        try
        {
            if (existed)
            {
                store.addDelete(deleteBatch, scratchKey(key));
            }
            records.addTo(deleteBatch, existed ? Status.OK : Status.NOT_FOUND);
            store.write(deleteBatch);
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("delete failed: " + ex.getMessage(), ex);
        }
        finally
        {
            deleteBatch.clear();
        }
    }

    /**
     * At once: every write this path put in RocksDB was answered when it was written (a PUT staged in the batch is not
     * in RocksDB yet, so no decision read it).
     */
    @Override
    public void answerUnwritten(final Endpoint endpoint, final long correlationId, final HashedKey key,
        final Status status, final long dataVersion, final long expiryMillis, final String reason)
    {
        outcome.unwritten(endpoint, correlationId, status, dataVersion, expiryMillis, reason);
    }

    @Override
    public boolean holdsWriteFor(final Endpoint endpoint, final HashedKey key)
    {
        return !puts.isEmpty() && puts.holds(endpoint, key);
    }

    @Override
    public int flush()
    {
        return puts.commit();
    }

    @Override
    public int doWork()
    {
        return puts.commit();
    }

    @Override
    public int inFlightWrites()
    {
        return 0;
    }

    @Override
    public void close()
    {
        puts.close();
        deleteBatch.close();
        keyBatch.close();
    }

    /** The store key (slot prefix + key) of {@code key} in the direct scratch buffer. */
    private ByteBuffer scratchKey(final HashedKey key)
    {
        final int length = StoreKeys.encode(key, keyScratchBuffer, 0);
        keyScratch.limit(length).position(0);
        return keyScratch;
    }

    /** Reports each PUT of a written batch. */
    private final class Committer implements PutBatch.Committer
    {
        @Override
        public void committed(final Endpoint endpoint, final long correlationId, final HashedKey key,
            final DirectBuffer staging, final int valueIndex, final int valueLength)
        {
            outcome.putDurable(endpoint, correlationId, key, staging, valueIndex, valueLength);
        }

        @Override
        public void failed(final Endpoint endpoint, final long correlationId, final StoreException failure)
        {
            outcome.failed(endpoint, correlationId, ResponseSender.storeStatus(failure), failure.getMessage());
        }
    }
}
