package io.rdmakv.server.store;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

import java.util.List;

/** What the {@link DiskFullGuard} does to a {@link RocksStore}'s RocksDB, on the guard's checker thread. */
final class DiskActions implements DiskFullGuard.StoreActions
{
    /** Deleted by the probe: a slot prefix and no client key, which no client key can be (keys are never empty). */
    private static final byte[] PROBE_KEY = new byte[StoreKeys.PREFIX_LENGTH];

    private final RocksDB db;
    private final ColumnFamilyHandle keys;
    private final List<ColumnFamilyHandle> families;
    private final WriteOptions walOptions;

    DiskActions(final RocksDB db, final ColumnFamilyHandle keys, final List<ColumnFamilyHandle> families,
        final WriteOptions walOptions)
    {
        this.db = db;
        this.keys = keys;
        this.families = families;
        this.walOptions = walOptions;
    }

    /** A deletion of nothing: a few WAL bytes, refused while RocksDB is stopped by its background error. */
    @Override
    public void probe() throws RocksDBException
    {
        db.delete(keys, walOptions, PROBE_KEY);
    }

    @Override
    public void reclaim() throws RocksDBException
    {
        try (FlushOptions fo = new FlushOptions().setWaitForFlush(true))
        {
            db.flush(fo, families);
        }
        db.compactRange(keys);
    }

    @Override
    public long sequence()
    {
        return db.getLatestSequenceNumber();
    }
}
