package io.rdmakv.server.store;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;

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

    private LegacyKeyMigration()
    {
    }

    /** Migrate every key of {@code legacy} into {@code keys}; returns how many moved. */
    static long migrate(final RocksDB db, final ColumnFamilyHandle legacy, final ColumnFamilyHandle keys,
        final Path directory)
    {
        return FamilyMove.run(db, legacy, keys, directory, new FamilyMove.Transform()
        {
            @Override
            public byte[] key(final byte[] oldKey)
            {
                return StoreKeys.encode(oldKey);
            }

            @Override
            public byte[] value(final byte[] oldValue)
            {
                return oldValue;
            }
        }, "keys without slot prefix", "slot-prefixed keys", LOG);
    }
}
