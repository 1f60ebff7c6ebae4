package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.ValueRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Slot-prefixed keys: a range is an interval of the store, and a store of the format before is migrated on open. */
class SlotKeyFormatTest
{
    @TempDir
    Path dir;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void shouldMigrateAStoreWrittenWithoutSlotPrefixesOnOpen() throws Exception
    {
        // The format before: client keys as is, in the default column family.
        try (Options options = new Options().setCreateIfMissing(true);
            RocksDB legacy = RocksDB.open(options, dir.toString()))
        {
            for (int i = 0; i < 5_000; i++)
            {
                legacy.put(b("key-" + i), b("value-" + i));
            }
        }
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            assertArrayEquals(b("value-0"), store.get(b("key-0")));
            assertArrayEquals(b("value-4999"), store.get(b("key-4999")));
            final List<byte[]> keys = new ArrayList<>();
            store.forEach((k, v) -> keys.add(k));
            assertEquals(5_000, keys.size(), "every key visible once, in the new format only");
            store.put(b("key-0"), b("new"));
        }
        // Reopen: nothing left to migrate, the new write is kept (not overwritten by a second migration).
        try (RocksStore store = RocksStore.open(dir, Durability.FSYNC))
        {
            assertArrayEquals(b("new"), store.get(b("key-0")));
            final long[] count = {0};
            store.forEach((k, v) -> ++count[0] > 0);
            assertEquals(5_000, count[0]);
        }
    }

    @Test
    @Timeout(60)
    void shouldScanAndDropOneSlotRangeOnly()
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            final Map<String, Integer> hashSlotOf = new HashMap<>();
            for (int i = 0; i < 2_000; i++)
            {
                final byte[] key = b("k" + i);
                store.put(key, b("v" + i));
                hashSlotOf.put("k" + i, StoreKeys.hashSlotOfStoreKey(StoreKeys.encode(key)));
            }
            final int first = 4_000;
            final int last = 8_191;
            final long inRange = hashSlotOf.values().stream().filter(s -> s >= first && s <= last).count();
            assertTrue(inRange > 0 && inRange < 2_000);
            final List<String> seen = new ArrayList<>();
            final long visited = store.ranges().scan(first, last, (k, v) ->
            {
                final String key = new String(k, StandardCharsets.UTF_8);
                assertArrayEquals(b("v" + key.substring(1)), ValueRecord.value(v), "a range holds records");
                seen.add(key);
                return true;
            });
            assertEquals(inRange, visited);
            seen.forEach(k -> assertTrue(hashSlotOf.get(k) >= first && hashSlotOf.get(k) <= last, k));

            store.ranges().drop(first, last);
            for (final Map.Entry<String, Integer> e : hashSlotOf.entrySet())
            {
                final boolean dropped = e.getValue() >= first && e.getValue() <= last;
                if (dropped)
                {
                    assertNull(store.get(b(e.getKey())), e.getKey());
                }
                else
                {
                    assertFalse(store.get(b(e.getKey())) == null, e.getKey());
                }
            }
        }
    }
}
