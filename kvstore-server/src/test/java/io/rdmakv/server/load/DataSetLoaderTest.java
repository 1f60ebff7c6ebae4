package io.rdmakv.server.load;

import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DataSetLoaderTest
{
    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void shouldWriteEveryKeyDurablyAcrossSeveralBatches()
    {
        // 20,000 x ~1 KiB: about 20 MiB, more than two 8 MiB batches.
        final SyntheticDataSet set = new SyntheticDataSet(20_000, 12, 1000);
        final List<Long> progress = new ArrayList<>();
        final DataSetLoader.Result result = DataSetLoader.load(dir, set, progress::add);
        assertEquals(20_000, result.keys());
        assertEquals(set.totalBytes(), result.bytes());
        assertEquals(16, progress.size(), "progress after every sixteenth: " + progress);
        assertEquals(20_000, progress.get(15));

        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            final long[] count = new long[1];
            store.forEach((key, value) ->
            {
                final long i = set.indexOf(key);
                assertTrue(i >= 0, "a key of the set");
                assertTrue(set.matches(i, value), "value of key " + i);
                count[0]++;
                return true;
            });
            assertEquals(20_000, count[0]);
            assertArrayEquals(set.value(19_999), store.get(set.key(19_999)));
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseAStoreThatIsInUse()
    {
        try (RocksStore running = RocksStore.open(dir, Durability.DEFAULT))
        {
            final StoreException ex = assertThrows(StoreException.class,
                () -> DataSetLoader.load(running.directory(), new SyntheticDataSet(10, 4, 10), n -> { }));
            assertTrue(ex.getMessage().contains("cannot open RocksDB"), ex.getMessage());
        }
    }
}
