package io.rdmakv.server.store;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteOptions;

/**
 * The keys of one slot range, an interval of the store thanks to the slot prefix ({@link StoreKeys}): read at one
 * point in time (a RocksDB snapshot, the checkpoint a catching-up replica or a backup streams) or dropped at once.
 * Thread-safe (RocksDB is); a scan holds its snapshot until it returns.
 */
public final class RangeStore
{
    private final RocksDB db;
    private final ColumnFamilyHandle keys;
    private final WriteOptions walOptions;

    RangeStore(final RocksDB db, final ColumnFamilyHandle keys, final WriteOptions walOptions)
    {
        this.db = db;
        this.keys = keys;
        this.walOptions = walOptions;
    }

    /**
     * Visit every client key/value of slots {@code firstSlot..lastSlot} as of one point in time (writes after the
     * call started are not seen), in store-key order; stops early when the visitor returns false.
     *
     * @return the entries visited.
     */
    public long scan(final int firstSlot, final int lastSlot, final RocksStore.KeyValueVisitor visitor)
    {
        final Snapshot snapshot = db.getSnapshot();
        long visited = 0;
        try (Slice upper = new Slice(StoreKeys.lowerBound(lastSlot + 1));
            ReadOptions options = new ReadOptions().setSnapshot(snapshot).setFillCache(false)
                .setIterateUpperBound(upper);
            RocksIterator it = db.newIterator(keys, options))
        {
            for (it.seek(StoreKeys.lowerBound(firstSlot)); it.isValid(); it.next())
            {
                visited++;
                if (!visitor.visit(StoreKeys.clientKey(it.key()), it.value()))
                {
                    break;
                }
            }
            it.status();
            return visited;
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("scan of slots " + firstSlot + ".." + lastSlot + " failed after " + visited +
                " keys: " + ex.getMessage(), ex);
        }
        finally
        {
            db.releaseSnapshot(snapshot);
        }
    }

    /** The value of client key {@code key} now, or null (a new primary's reconcile reads the values it sends). */
    public byte[] get(final byte[] key)
    {
        try
        {
            return db.get(keys, StoreKeys.encode(key));
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("get failed: " + ex.getMessage(), ex);
        }
    }

    /** Delete every key of slots {@code firstSlot..lastSlot} (one range tombstone, WAL on). */
    public void drop(final int firstSlot, final int lastSlot)
    {
        try
        {
            db.deleteRange(keys, walOptions, StoreKeys.lowerBound(firstSlot), StoreKeys.lowerBound(lastSlot + 1));
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("dropping slots " + firstSlot + ".." + lastSlot + " failed: " + ex.getMessage(),
                ex);
        }
    }
}
