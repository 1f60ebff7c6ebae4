package io.rdmakv.server.store;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

import java.nio.ByteBuffer;

/**
 * One pass over every key of the store in key order (slot by slot, see {@link StoreKeys}; the batch holds client keys), copied batch by batch into {@link KeyValueBatch}es (warm-up).
 * Tuned for one sequential read of everything: blocks read are not kept in the block cache (they would only evict
 * what is there) and the file reads ahead {@link #READAHEAD_BYTES}. Keys and values are copied straight from
 * RocksDB into the batch's direct memory: nothing is allocated per key. Used by one thread at a time.
 */
public final class StoreScan implements AutoCloseable
{
    /** Readahead of the scan's file reads (a cold page cache reads in large sequential chunks). */
    public static final long READAHEAD_BYTES = 2L << 20;

    private final ReadOptions options;
    private final RocksIterator iterator;
    private long keys;
    private boolean closed;

    StoreScan(final RocksDB db, final ColumnFamilyHandle keys)
    {
        options = new ReadOptions().setFillCache(false).setReadaheadSize(READAHEAD_BYTES);
        iterator = db.newIterator(keys, options);
        iterator.seekToFirst();
    }

    /**
     * Append entries to {@code batch} until it is full or the store is exhausted. An entry too large for an empty
     * batch is skipped and counted in {@link KeyValueBatch#oversized()}.
     *
     * @return false when every key has been visited (the batch may still hold the last entries).
     * @throws StoreException when RocksDB reports an error during the scan.
     */
    public boolean fill(final KeyValueBatch batch)
    {
        if (closed)
        {
            throw new StoreException("scan closed");
        }
        final ByteBuffer bb = batch.byteBuffer();
        final int capacity = batch.capacity();
        while (iterator.isValid())
        {
            final int keyAt = batch.limit() + KeyValueBatch.ENTRY_HEADER_LENGTH;
            if (keyAt >= capacity)
            {
                return true;
            }
            // The store key goes where its slot prefix overlaps the entry header (commit rewrites the header), so
            // the client key lands at keyAt.
            bb.limit(capacity).position(keyAt - StoreKeys.PREFIX_LENGTH);
            final int keyLength = iterator.key(bb) - StoreKeys.PREFIX_LENGTH;
            final int valueAt = keyAt + keyLength;
            int valueLength = -1;
            if (valueAt <= capacity)
            {
                bb.limit(capacity).position(valueAt);
                valueLength = iterator.value(bb);
            }
            if (valueLength < 0 || valueAt + valueLength > capacity)
            {
                if (batch.limit() > 0)
                {
                    return true; // the entry starts the next batch
                }
                batch.countOversized();
            }
            else
            {
                batch.commit(keyLength, valueLength);
            }
            keys++;
            iterator.next();
        }
        try
        {
            iterator.status();
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("scan failed after " + keys + " keys: " + ex.getMessage(), ex);
        }
        return false;
    }

    /** Keys visited so far (copied or oversized). */
    public long keys()
    {
        return keys;
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            iterator.close();
            options.close();
        }
    }
}
