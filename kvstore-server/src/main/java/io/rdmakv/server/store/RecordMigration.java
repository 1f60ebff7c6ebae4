package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.ValueRecord;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;

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

    private RecordMigration()
    {
    }

    /** Migrate every key of {@code bare} into {@code records}; returns how many moved. */
    static long migrate(final RocksDB db, final ColumnFamilyHandle bare, final ColumnFamilyHandle records,
        final Path directory)
    {
        final DataVersions versions = new DataVersions(0);
        return FamilyMove.run(db, bare, records, directory, new FamilyMove.Transform()
        {
            @Override
            public byte[] key(final byte[] oldKey)
            {
                return oldKey;
            }

            @Override
            public byte[] value(final byte[] oldValue)
            {
                return ValueRecord.of(oldValue, versions.next(), 0);
            }
        }, "bare values (written before value records)", "value records with a data version and no expiry", LOG);
    }
}
