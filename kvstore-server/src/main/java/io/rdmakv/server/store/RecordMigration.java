package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.ValueRecord;
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
 * Moves the values of a store written before value records (bare values under slot-prefixed keys, in the column
 * family {@value RocksStore#SLOT_KEYS_FAMILY}) to {@value RocksStore#KEYS_FAMILY} as records ({@link ValueRecord}) of
 * a fresh data version and no expiry, when the store is opened. The format is told by where keys are: a key in the
 * old family is a bare value, a key in the new one a record (one seek decides; nothing to do for a store of this
 * format or a new one).
 *
 * <p>Crash-safe and resumable, as {@link LegacyKeyMigration}: each batch puts the records and deletes the bare values
 * atomically (one WriteBatch over both families), so an interrupted migration leaves every key in exactly one format
 * (a value is never wrapped twice), and the next open finishes it. Each key gets its own version from one
 * {@link DataVersions} (node bits 0): unique per key, and below what the node issues once it has warmed up.
 */
final class RecordMigration
{
    private static final Logger LOG = LoggerFactory.getLogger(RecordMigration.class);
    private static final long BATCH_BYTES = 4L << 20;

    private RecordMigration()
    {
    }

    /** Migrate every key of {@code bare} into {@code records}; returns how many moved. */
    static long migrate(final RocksDB db, final ColumnFamilyHandle bare, final ColumnFamilyHandle records,
        final Path directory)
    {
        long moved = 0;
        final DataVersions versions = new DataVersions(0);
        try (RocksIterator it = db.newIterator(bare);
            WriteBatch batch = new WriteBatch();
            WriteOptions wal = new WriteOptions())
        {
            it.seekToFirst();
            if (!it.isValid())
            {
                it.status();
                return 0;
            }
            LOG.info("store at {} holds bare values (written before value records): migrating them to records " +
                "with a data version and no expiry", directory.toAbsolutePath());
            for (; it.isValid(); it.next())
            {
                final byte[] key = it.key();
                batch.put(records, key, ValueRecord.of(it.value(), versions.next(), 0));
                batch.delete(bare, key);
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
                db.flush(flush, List.of(bare, records));
            }
            LOG.info("migrated {} values to value records", moved);
            return moved;
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("migrating " + directory.toAbsolutePath() + " to value records failed after " +
                moved + " keys (the next open resumes): " + ex.getMessage(), ex);
        }
    }
}
