package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.ValueRecord;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Writes many keys into an offline store fast: batched, with the write-ahead log off, and durable only once
 * {@link #close()} has flushed the memtables to SST files. For loading a data directory no server is using
 * ({@code rdmakv load}); a crash before {@code close()} returns may lose any of the batch. Not thread-safe.
 */
public final class BulkLoad implements AutoCloseable
{
    private final RocksStore store;
    private final RocksDB db;
    private final ColumnFamilyHandle keysFamily;
    private final WriteOptions unlogged = new WriteOptions().setDisableWAL(true).setSync(false);
    private final WriteBatch batch = new WriteBatch();
    private final long batchBytes;
    private final DataVersions versions = new DataVersions(0);
    private long keys;
    private long bytes;
    private boolean closed;

    BulkLoad(final RocksStore store, final RocksDB db, final ColumnFamilyHandle keysFamily, final long batchBytes)
    {
        if (batchBytes < 1)
        {
            throw new IllegalArgumentException("batch size must be positive: " + batchBytes);
        }
        this.store = store;
        this.db = db;
        this.keysFamily = keysFamily;
        this.batchBytes = batchBytes;
    }

    /**
     * Add client {@code key -> value} (both copied into the batch; the arrays may be reused at once), as a record
     * ({@link ValueRecord}) of a fresh data version (node bits 0) and no expiry.
     */
    public void put(final byte[] key, final byte[] value)
    {
        if (closed)
        {
            throw new IllegalStateException("bulk load closed");
        }
        try
        {
            batch.put(keysFamily, StoreKeys.encode(key), ValueRecord.of(value, versions.next(), 0));
            keys++;
            bytes += key.length + (long)value.length;
            if (batch.getDataSize() >= batchBytes)
            {
                writeBatch();
            }
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("bulk load failed after " + keys + " keys: " + ex.getMessage(), ex);
        }
    }

    /**
     * Add client {@code key -> record} with the record as it is ({@link ValueRecord}: its data version and expiry
     * kept), as a backup copies a node's store.
     *
     * @throws io.rdmakv.protocol.ProtocolException when {@code record} is not a record of this format.
     */
    public void putRecord(final byte[] key, final byte[] record)
    {
        if (closed)
        {
            throw new IllegalStateException("bulk load closed");
        }
        ValueRecord.check(record);
        try
        {
            batch.put(keysFamily, StoreKeys.encode(key), record);
            keys++;
            bytes += key.length + (long)(record.length - ValueRecord.HEADER_LENGTH);
            if (batch.getDataSize() >= batchBytes)
            {
                writeBatch();
            }
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("bulk load failed after " + keys + " keys: " + ex.getMessage(), ex);
        }
    }

    /** Keys added so far. */
    public long keys()
    {
        return keys;
    }

    /** Key and value bytes added so far. */
    public long bytes()
    {
        return bytes;
    }

    /** Write the last batch and flush to SST files (the WAL was off, so only this makes the load durable). */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            writeBatch();
            store.flush();
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("bulk load failed at its last batch: " + ex.getMessage(), ex);
        }
        finally
        {
            batch.close();
            unlogged.close();
        }
    }

    private void writeBatch() throws RocksDBException
    {
        if (batch.count() > 0)
        {
            db.write(unlogged, batch);
            batch.clear();
        }
    }
}
