package io.rdmakv.server.store;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;

/**
 * Moves the keys of a store written before slot prefixes (client keys in the default column family) to the slot-keys
 * family with their prefix ({@link StoreKeys}), when the store is opened. The format is detected by where keys are:
 * any key in the default family is of the old format, none there means nothing to do (one seek).
 *
 * <p>Crash-safe and resumable: each batch puts the new keys and deletes the old ones atomically (one WriteBatch over
 * both families), so an interrupted migration leaves every key in exactly one format, and the next open finishes it.
 */
final class LegacyKeyMigration
{
    private static final Logger LOG = LoggerFactory.getLogger(LegacyKeyMigration.class);
    private static final long BATCH_BYTES = 4L << 20;

    private LegacyKeyMigration()
    {
    }

    /** Migrate every key of {@code legacy} into {@code keys}; returns how many moved. */
    static long migrate(final RocksDB db, final ColumnFamilyHandle legacy, final ColumnFamilyHandle keys,
        final Path directory)
    {
        long moved = 0;
        try (RocksIterator it = db.newIterator(legacy);
            WriteBatch batch = new WriteBatch();
            WriteOptions wal = new WriteOptions())
        {
            it.seekToFirst();
            if (!it.isValid())
            {
                it.status();
                return 0;
            }
            LOG.info("store at {} holds keys without slot prefix: migrating them", directory.toAbsolutePath());
            for (; it.isValid(); it.next())
            {
                final byte[] key = it.key();
                batch.put(keys, StoreKeys.encode(key), it.value());
                batch.delete(legacy, key);
                moved++;
                if (batch.getDataSize() >= BATCH_BYTES)
                {
                    db.write(wal, batch);
                    batch.clear();
                }
            }
            it.status();
            db.write(wal, batch);
            try (FlushOptions flush = new FlushOptions().setWaitForFlush(true))
            {
                db.flush(flush, List.of(legacy, keys));
            }
            LOG.info("migrated {} keys to slot-prefixed keys", moved);
            return moved;
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("migrating " + directory.toAbsolutePath() + " to slot-prefixed keys failed after " +
                moved + " keys (the next open resumes): " + ex.getMessage(), ex);
        }
    }
}
