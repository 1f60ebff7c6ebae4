package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.ValueRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A data directory of the format before value records (bare values under slot-prefixed keys in the family
 * {@value RocksStore#SLOT_KEYS_FAMILY}) is migrated when it is opened: every value becomes a record of its own data
 * version and no expiry, and an interrupted migration is finished by the next open without wrapping any value twice.
 */
class RecordMigrationTest
{
    private static final int KEYS = 3_000;

    @TempDir
    Path dir;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Writes what the previous build left: the three families it had, bare values in the slot-keys family, its mark;
     * {@code alreadyMigrated} keys (the first ones) as records in the records family, as an interrupted migration
     * leaves them.
     */
    private void writePreviousFormat(final int alreadyMigrated) throws Exception
    {
        RocksDB.loadLibrary();
        final List<ColumnFamilyHandle> handles = new ArrayList<>();
        final List<ColumnFamilyDescriptor> families = new ArrayList<>(List.of(
            new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
            new ColumnFamilyDescriptor(b(RocksStore.SLOT_KEYS_FAMILY)),
            new ColumnFamilyDescriptor(b(WriteRecords.FAMILY))));
        if (alreadyMigrated > 0)
        {
            families.add(new ColumnFamilyDescriptor(b(RocksStore.KEYS_FAMILY)));
        }
        try (DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
            RocksDB db = RocksDB.open(options, dir.toString(), families, handles))
        {
            for (int i = 0; i < KEYS; i++)
            {
                if (i < alreadyMigrated)
                {
                    db.put(handles.get(3), StoreKeys.encode(b("k" + i)), ValueRecord.of(b("value-" + i), 1000 + i, 0));
                }
                else
                {
                    db.put(handles.get(1), StoreKeys.encode(b("k" + i)), b("value-" + i));
                }
            }
            handles.forEach(ColumnFamilyHandle::close);
        }
        Files.writeString(dir.resolve(SlotHashMark.FILE), SlotHashMark.MAPPING + "\n");
    }

    private void assertEveryValueARecordOnce(final RocksStore store)
    {
        final Set<Long> versions = new HashSet<>();
        for (int i = 0; i < KEYS; i++)
        {
            final byte[] record = store.getRecord(b("k" + i));
            assertArrayEquals(b("value-" + i), ValueRecord.value(record), "k" + i + ": wrapped exactly once");
            assertEquals(0, ValueRecord.expiryMillis(record), "no expiry");
            assertNotEquals(0, ValueRecord.dataVersion(record));
            assertTrue(versions.add(ValueRecord.dataVersion(record)), "a version of its own");
        }
        final long[] count = {0};
        store.forEach((k, v) -> ++count[0] > 0);
        assertEquals(KEYS, count[0], "every key once, none left in the old family");
    }

    @Test
    @Timeout(60)
    void shouldMigrateBareValuesToRecordsAtOpenAndLeaveThemAsTheyAreNextTime() throws Exception
    {
        writePreviousFormat(0);
        final long[] versions = new long[KEYS];
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            assertEveryValueARecordOnce(store);
            for (int i = 0; i < KEYS; i++)
            {
                versions[i] = ValueRecord.dataVersion(store.getRecord(b("k" + i)));
            }
        }
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            assertEveryValueARecordOnce(store);
            for (int i = 0; i < KEYS; i++)
            {
                assertEquals(versions[i], ValueRecord.dataVersion(store.getRecord(b("k" + i))), "not migrated again");
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldFinishAnInterruptedMigrationWithoutWrappingAValueTwice() throws Exception
    {
        writePreviousFormat(KEYS / 2);
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            assertEveryValueARecordOnce(store);
            assertEquals(1000, ValueRecord.dataVersion(store.getRecord(b("k0"))), "a migrated record kept as it is");
        }
    }
}
