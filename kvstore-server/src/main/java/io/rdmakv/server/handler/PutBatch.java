package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreException;
import io.rdmakv.server.store.StoreKeys;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;

/**
 * DEFAULT durability: the PUTs of one progress step written to RocksDB as ONE {@link WriteBatch} (one WAL write, one
 * write-group entry) instead of one write each, then placed in the pool and answered in arrival order. An answer still
 * follows the durable write, so invariant 2 (an acknowledged PUT survives kill -9) is kept.
 *
 * <pre>
 *   add(PUT)  -> store key (slot prefix + key) and value copied into the staging buffer (the message buffer dies
 *                with the callback) and into the WriteBatch, with the PUT's records ({@link DurableRecords}); the
 *                first of a step wakes the request thread
 *   commit()  -> store.write(batch) -> for each PUT in order: Committer.committed (pool, answer OK)
 *                                   | on failure: Committer.failed for each (STORE_ERROR), nothing placed in the pool
 *   commit happens: at the request thread's next duty cycle (after the I/O that is ready), before any request that
 *                   is not a PUT (a GET or DELETE sees every earlier PUT), and when the staging buffer is full
 *
 *   staging buffer: | slot 0 | key 0 | value 0 | slot 1 | key 1 | value 1 | ...   offsets and lengths kept per PUT
 *                     (slot: the {@link StoreKeys} prefix; the committer is given the key without it)
 * </pre>
 * Each PUT's key keeps the two hashes it was decoded with ({@link HashedKey}): the committer is given the staged copy
 * under those, through one reused key reference, so the pool never hashes it again.
 * Request thread only.
 */
final class PutBatch implements AutoCloseable
{
    /** What the handler does with each PUT once its batch is durable (or failed). */
    interface Committer
    {
        /** {@code key}: the staged copy, valid during the call; the value is in {@code staging} too. */
        void committed(Endpoint endpoint, long correlationId, HashedKey key, DirectBuffer staging, int valueIndex,
            int valueLength);

        void failed(Endpoint endpoint, long correlationId, StoreException failure);
    }

    static final int MAX_PUTS = 256;

    private final RocksStore store;
    /** The records of the PUT being added, written in its batch. */
    private final DurableRecords records;
    private final Committer committer;
    private final Runnable firstAdded;
    private final WriteBatch batch = new WriteBatch();
    private final ByteBuffer staging;
    private final UnsafeBuffer stagingBuffer;
    private final ByteBuffer keyView;
    private final ByteBuffer valueView;
    private final Endpoint[] endpoints = new Endpoint[MAX_PUTS];
    private final long[] correlationIds = new long[MAX_PUTS];
    private final int[] keyIndexes = new int[MAX_PUTS];
    private final int[] keyLengths = new int[MAX_PUTS];
    private final int[] valueLengths = new int[MAX_PUTS];
    private final long[] keyHashes = new long[MAX_PUTS];
    private final int[] hashSlots = new int[MAX_PUTS];
    /** The staged key handed to the committer, under the hashes it came with. */
    private final HashedKey stagedKey = new HashedKey();
    private int count;
    private int used;

    /**
     * @param capacity   staging bytes; at least one largest key plus one largest value.
     * @param firstAdded called when a PUT joins an empty batch (wakes the request thread for the commit).
     */
    PutBatch(final RocksStore store, final int capacity, final Committer committer, final Runnable firstAdded,
        final DurableRecords records)
    {
        this.store = store;
        this.records = records;
        this.committer = committer;
        this.firstAdded = firstAdded;
        this.staging = ByteBuffer.allocateDirect(capacity);
        this.stagingBuffer = new UnsafeBuffer(staging);
        this.keyView = staging.duplicate();
        this.valueView = staging.duplicate();
    }

    boolean isEmpty()
    {
        return count == 0;
    }

    /** Whether a PUT in the batch came on {@code endpoint} or is of {@code key} (see {@link WritePath#holdsWriteFor}). */
    boolean holds(final Endpoint endpoint, final HashedKey key)
    {
        for (int i = 0; i < count; i++)
        {
            if (endpoints[i] == endpoint ||
                keyHashes[i] == key.hash() && key.sameBytes(stagingBuffer, keyIndexes[i], keyLengths[i]))
            {
                return true;
            }
        }
        return false;
    }

    /** Join the batch (committing the current one first when it is full). */
    void add(final Endpoint endpoint, final long correlationId, final HashedKey key, final DirectBuffer value,
        final int valueIndex, final int valueLength)
    {
        final int keyLength = key.length();
        if (count == MAX_PUTS || used + StoreKeys.PREFIX_LENGTH + keyLength + valueLength > staging.capacity())
        {
            commit();
        }
        final int k = used;
        final int v = k + StoreKeys.encode(key, stagingBuffer, k);
        stagingBuffer.putBytes(v, value, valueIndex, valueLength);
        keyView.limit(v).position(k);
        valueView.limit(v + valueLength).position(v);
        try
        {
            store.addPut(batch, keyView, valueView);
            if (records.pending())
            {
                records.addTo(batch, io.rdmakv.protocol.wire.Status.OK, stagingBuffer, v, valueLength);
            }
        }
        catch (final RocksDBException ex)
        {
            committer.failed(endpoint, correlationId, new StoreException("put failed: " + ex.getMessage(), ex));
            return;
        }
        endpoints[count] = endpoint;
        correlationIds[count] = correlationId;
        keyIndexes[count] = k + StoreKeys.PREFIX_LENGTH;
        keyLengths[count] = keyLength;
        keyHashes[count] = key.hash();
        hashSlots[count] = key.hashSlot();
        valueLengths[count] = valueLength;
        count++;
        used = v + valueLength;
        if (count == 1)
        {
            firstAdded.run();
        }
    }

    /** Write the batch durably, then hand every PUT in it to the committer in order. Returns the PUTs committed. */
    int commit()
    {
        final int n = count;
        if (n == 0)
        {
            return 0;
        }
        StoreException failure = null;
        try
        {
            store.write(batch);
        }
        catch (final StoreException ex)
        {
            failure = ex;
        }
        for (int i = 0; i < n; i++)
        {
            final Endpoint endpoint = endpoints[i];
            endpoints[i] = null;
            if (failure == null)
            {
                committer.committed(endpoint, correlationIds[i],
                    stagedKey.wrapHashed(stagingBuffer, keyIndexes[i], keyLengths[i], keyHashes[i], hashSlots[i]),
                    stagingBuffer, keyIndexes[i] + keyLengths[i], valueLengths[i]);
            }
            else
            {
                committer.failed(endpoint, correlationIds[i], failure);
            }
        }
        batch.clear();
        count = 0;
        used = 0;
        return n;
    }

    @Override
    public void close()
    {
        batch.close();
    }
}
