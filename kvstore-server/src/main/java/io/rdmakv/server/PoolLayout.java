package io.rdmakv.server;

import io.rdmakv.pool.PinnedArena;
import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.server.pool.PoolSizing;
import io.rdmakv.server.pool.PoolWarmUp;
import io.rdmakv.server.store.RocksStore;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * A node's pool laid out at start-up, on the mapped arena: the layout epoch (one more than the last start's, so no
 * reader mistakes an old extent for a new one), the extent allocator, the empty index and its header, then the
 * warm-up from RocksDB ({@link PoolWarmUp}).
 *
 * @param epoch  the layout epoch.
 * @param index  the pool's index, holding what the warm-up loaded.
 * @param warmUp what the warm-up loaded, and how long it took.
 */
record PoolLayout(long epoch, PoolIndex index, PoolWarmUp.Result warmUp)
{
    private static final Logger LOG = LoggerFactory.getLogger(KvServer.class);

    /** Lay out the pool and warm it up; the steps go into {@code timeline}. */
    static PoolLayout layOut(final ServerConfig config, final PinnedArena arena, final PoolGeometry geometry,
        final RocksStore store, final StartupReport.Builder timeline)
    {
        final long epoch = LayoutEpochFile.next(config.dataDir());
        final int partitionSize = arena.partitions().partitionSize();
        final EpochReclaimer reclaimer = new EpochReclaimer(
            TimeUnit.MILLISECONDS.toNanos(config.reclaimGraceMillis()), new SystemNanoClock());
        final ExtentAllocator allocator = PoolSizing.newAllocator(geometry, partitionSize, reclaimer);
        final PoolIndex index = new PoolIndex(arena.partitions(), geometry, allocator, config.nodeId(), epoch);
        if (config.scribbleRetired())
        {
            index.scribbleRetired(true);
            LOG.warn("pool.scribbleRetired=true: superseded extents are overwritten at once (a test setting: stale " +
                "one-sided reads fail their check and are retried)");
        }
        LOG.info("pool: {} B at 0x{} ({}, huge pages {}), {} buckets ({} B of index per key at {} B entries), " +
            "extents {} B in pages of {} B, epoch {}", config.poolSize(), Long.toHexString(arena.address()),
            arena.isPinned() ? "pinned" : "NOT pinned", arena.hugePages(), geometry.bucketCount(),
            String.format("%.1f", PoolSizing.indexBytesPerKey(geometry, config.indexAvgEntryBytes())),
            config.indexAvgEntryBytes(), geometry.extentsLength(), allocator.pageSize(), epoch);
        timeline.mark("index init");
        final PoolWarmUp.Result warmUp = PoolWarmUp.load(store, index, config.maxKeyBytes(), config.maxValueBytes());
        timeline.add("warm-up", warmUp.millis(), false);
        timeline.add("RocksDB scan", warmUp.scanMillis(), true);
        timeline.add("pool writes (copy, CRC, index slots)", warmUp.writeMillis(), true);
        return new PoolLayout(epoch, index, warmUp);
    }
}
