package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.ValueRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoreScanTest
{
    @TempDir
    Path dir;

    @Test
    @Timeout(30)
    void shouldCopyEveryEntryInStoreKeyOrderAcrossBatchesAndSkipOnlyEntriesLargerThanABatch()
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            for (int i = 0; i < 100; i++)
            {
                store.put(key(i), value(i, 10 + i * 7));
            }
            store.put(key(50), new byte[5000]); // one entry that no 1 KiB batch can hold

            final List<String> seen = new ArrayList<>();
            final KeyValueBatch batch = new KeyValueBatch(1024);
            long oversized = 0;
            int batches = 0;
            try (StoreScan scan = store.scan())
            {
                boolean more = true;
                while (more)
                {
                    batch.clear();
                    more = scan.fill(batch);
                    batches++;
                    oversized += batch.oversized();
                    assertTrue(batch.limit() <= batch.capacity());
                    int entries = 0;
                    for (int at = 0; at < batch.limit(); at = batch.next(at))
                    {
                        final byte[] k = new byte[batch.keyLength(at)];
                        batch.buffer().getBytes(batch.keyIndex(at), k);
                        final byte[] record = new byte[batch.valueLength(at)];
                        batch.buffer().getBytes(batch.valueIndex(at), record);
                        final byte[] v = ValueRecord.value(record); // the scan copies the stored records
                        final int i = Integer.parseInt(new String(k, StandardCharsets.US_ASCII).substring(4));
                        assertEquals(new String(value(i, 10 + i * 7), StandardCharsets.US_ASCII),
                            new String(v, StandardCharsets.US_ASCII), "value of " + i);
                        seen.add(new String(k, StandardCharsets.US_ASCII));
                        entries++;
                    }
                    assertEquals(batch.count(), entries);
                }
                assertEquals(100, scan.keys(), "every key visited, the oversized one included");
                assertFalse(scan.fill(batch), "exhausted");
            }
            assertEquals(1, oversized);
            assertEquals(99, seen.size());
            assertFalse(seen.contains("key-050"));
            final List<String> sorted = new ArrayList<>(seen);
            sorted.sort(java.util.Comparator.comparingInt((String k) -> StoreKeys.hashSlotOfStoreKey(
                StoreKeys.encode(k.getBytes(StandardCharsets.US_ASCII)))).thenComparing(java.util.Comparator.naturalOrder()));
            assertEquals(sorted, seen, "store-key order: slot by slot, then key");
            assertTrue(batches > 5, "about 37 KiB of entries need many 1 KiB batches: " + batches);
        }
    }

    @Test
    @Timeout(30)
    void shouldReportAnEmptyStoreAsExhaustedAndRefuseUseAfterClose()
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            final KeyValueBatch batch = new KeyValueBatch(64);
            final StoreScan scan = store.scan();
            assertFalse(scan.fill(batch));
            assertEquals(0, batch.count());
            scan.close();
            assertThrows(StoreException.class, () -> scan.fill(batch));
        }
    }

    private static byte[] key(final int i)
    {
        return String.format("key-%03d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(final int i, final int length)
    {
        final byte[] v = new byte[length];
        for (int j = 0; j < length; j++)
        {
            v[j] = (byte)('a' + (i + j) % 26);
        }
        return v;
    }
}
