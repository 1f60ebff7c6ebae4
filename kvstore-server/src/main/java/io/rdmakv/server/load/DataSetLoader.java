package io.rdmakv.server.load;

import io.rdmakv.server.store.BulkLoad;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;

import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * Writes a {@link SyntheticDataSet} into a node's data directory while no server runs on it (RocksDB refuses a
 * second opener, so a running node is detected, not corrupted). Keys already there stay; loaded keys are
 * overwritten. The load is durable when {@link #load} returns.
 */
public final class DataSetLoader
{
    /** RocksDB write batch size of the load. */
    public static final long BATCH_BYTES = 8L << 20;

    private DataSetLoader()
    {
    }

    /**
     * Load {@code set} into the store at {@code dataDir}.
     *
     * @param progress told the number of keys written after every 1/16 of the set (may be a no-op).
     * @throws io.rdmakv.server.store.StoreException when the store cannot be opened (e.g. a server holds it) or
     *                                               written.
     */
    public static Result load(final Path dataDir, final SyntheticDataSet set, final LongConsumer progress)
    {
        final long start = System.nanoTime();
        final byte[] key = new byte[set.keySize()];
        final byte[] value = new byte[set.valueSize()];
        final long step = Math.max(1, set.keyCount() / 16);
        try (RocksStore store = RocksStore.open(dataDir, Durability.DEFAULT))
        {
            try (BulkLoad load = store.bulkLoad(BATCH_BYTES))
            {
                for (long i = 0; i < set.keyCount(); i++)
                {
                    load.put(set.key(i, key), set.value(i, value));
                    if ((i + 1) % step == 0)
                    {
                        progress.accept(i + 1);
                    }
                }
            }
        }
        return new Result(set.keyCount(), set.totalBytes(), (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * @param keys   keys written.
     * @param bytes  key and value bytes written.
     * @param millis time from opening the store to closing it (flushed).
     */
    public record Result(long keys, long bytes, long millis)
    {
    }
}
