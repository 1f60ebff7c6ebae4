package io.rdmakv.server.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmakv.server.store.RocksStore;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * RocksDB as an operator watches it, from its own integer properties read at scrape time (no statistics object on
 * the write path): whether writes are stopped or slowed, pending compaction, memtables, keys. WAL syncs (FSYNC mode)
 * are {@code rdmakv_server_store_syncs_total}, bound from the node's gauges. Beside them, the space left on the store's
 * file system ({@code rdmakv_store_disk_available_bytes}, {@code rdmakv_store_disk_size_bytes}).
 */
public final class StoreMeters
{
    /** Property name -> meter name (under {@code rdmakv.rocksdb.}) and what it means. */
    private static final Map<String, String[]> PROPERTIES = Map.of(
        "rocksdb.is-write-stopped", new String[] {"write.stopped", "1 while RocksDB stops writes (a stall)"},
        "rocksdb.actual-delayed-write-rate", new String[] {"delayed.write.rate.bytes.per.second",
            "Bytes per second writes are slowed to; 0 when not delayed"},
        "rocksdb.compaction-pending", new String[] {"compaction.pending", "1 while a compaction is pending"},
        "rocksdb.estimate-pending-compaction-bytes", new String[] {"compaction.pending.bytes",
            "Bytes compaction must rewrite to settle"},
        "rocksdb.num-running-compactions", new String[] {"compactions.running", "Compactions running now"},
        "rocksdb.num-running-flushes", new String[] {"flushes.running", "Memtable flushes running now"},
        "rocksdb.cur-size-all-mem-tables", new String[] {"memtables.bytes", "Bytes in all memtables"},
        "rocksdb.estimate-num-keys", new String[] {"keys.estimate", "RocksDB's estimate of its keys"});

    private StoreMeters()
    {
    }

    public static void bind(final MeterRegistry registry, final RocksStore store)
    {
        PROPERTIES.forEach((property, meter) -> Gauge.builder("rdmakv.rocksdb." + meter[0], store,
            s -> s.longProperty(property)).description(meter[1] + " (" + property + ")").register(registry));
        final Path dir = store.directory();
        Gauge.builder("rdmakv.store.disk.available.bytes", dir, d -> space(d, false))
            .description("Bytes this process may still write on the file system of the store's directory " +
                "(alert: RdmakvDiskNearlyFull)")
            .strongReference(true).register(registry);
        Gauge.builder("rdmakv.store.disk.full", store, s -> s.diskGuard().full() ? 1 : 0)
            .description("1 while the disk is full: PUTs refused (DISK_FULL), DELETEs served; 0 otherwise " +
                "(docs/operations.md, \"Recover a full disk\")")
            .register(registry);
        Gauge.builder("rdmakv.store.disk.size.bytes", dir, d -> space(d, true))
            .description("Size in bytes of the file system holding the store's directory")
            .strongReference(true).register(registry);
    }

    /** Total or usable bytes of the file system holding {@code dir}; NaN (no sample) when it cannot be read. */
    private static double space(final Path dir, final boolean total)
    {
        try
        {
            final FileStore fs = Files.getFileStore(dir);
            return total ? fs.getTotalSpace() : fs.getUsableSpace();
        }
        catch (final IOException ex)
        {
            return Double.NaN;
        }
    }
}
