package io.rdmakv.server.store;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;

import java.nio.file.Path;
import java.util.List;

/**
 * The one mechanism of a store format migration at open: every entry of one column family moves to another,
 * transformed, in batches that put the new entry and delete the old one atomically (one WriteBatch over both
 * families), so an interrupted move leaves every key in exactly one format and the next open finishes it; both
 * families are flushed at the end. The format is told by where keys are: an empty source family means nothing to do
 * (one seek). Used by {@link LegacyKeyMigration} and {@link RecordMigration}.
 */
final class FamilyMove
{
    private static final long BATCH_BYTES = 4L << 20;

    /** The new key and value of an old entry. */
    interface Transform
    {
        byte[] key(byte[] oldKey);

        byte[] value(byte[] oldValue);
    }

    private FamilyMove()
    {
    }

    /**
     * Move every entry of {@code from} into {@code to}; returns how many moved. {@code found} names the old format and
     * {@code what} the new one, for the log lines and the error.
     */
    static long run(final RocksDB db, final ColumnFamilyHandle from, final ColumnFamilyHandle to,
        final Path directory, final Transform transform, final String found, final String what, final Logger log)
    {
        long moved = 0;
        try (RocksIterator it = db.newIterator(from);
            WriteBatch batch = new WriteBatch();
            WriteOptions wal = new WriteOptions())
        {
            it.seekToFirst();
            if (!it.isValid())
            {
                it.status();
                return 0;
            }
            log.info("store at {} holds {}: migrating them to {}", directory.toAbsolutePath(), found, what);
            for (; it.isValid(); it.next())
            {
                final byte[] key = it.key();
                batch.put(to, transform.key(key), transform.value(it.value()));
                batch.delete(from, key);
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
                db.flush(flush, List.of(from, to));
            }
            log.info("migrated {} entries to {}", moved, what);
            return moved;
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("migrating " + directory.toAbsolutePath() + " to " + what + " failed after " +
                moved + " keys (the next open resumes): " + ex.getMessage(), ex);
        }
    }
}
