package io.rdmakv.server.metrics;

import io.rdmakv.pool.PinnedArena;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.handler.RequestTimer;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.transport.MemoryDomain;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.Supplier;

/**
 * What a node reports beside its counters, read on demand (STATS, and the metrics endpoint for the numbers), in the
 * spirit of Redis' INFO: pool, store, uptime, memory (pool, pinned, heap, direct), version, transport and why, and
 * a latency summary per operation.
 */
public final class NodeGauges
{
    private NodeGauges()
    {
    }

    /** Register every gauge and fact on {@code counters} (before serving starts). */
    public static void register(final ServerCounters counters, final PoolIndex index, final MemoryDomain memoryDomain,
        final RocksStore store, final PinnedArena arena, final String transportName, final String transportReason,
        final Supplier<ServerMeters> requestTimes)
    {
        counters.gauge("pool.keys", index::keyCount);
        counters.gauge("pool.evictions", index::evictions);
        counters.gauge("pool.complete", () -> index.isComplete() ? 1 : 0);
        counters.gauge("pool.bytesInUse", () -> index.allocator().bytesInUse());
        counters.gauge("pool.retiredBytes", () -> index.allocator().retiredBytes());
        counters.gauge("registrations", memoryDomain::registrationCount);
        counters.gauge("store.syncs", store::syncCount);
        counters.gauge("store.keysEstimate", () -> store.longProperty("rocksdb.estimate-num-keys"));
        counters.gauge("uptime.ms",
            () -> System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime());
        counters.gauge("memory.pool.bytes", arena::size);
        counters.gauge("memory.pinned.bytes", () -> arena.isPinned() ? arena.size() : 0);
        counters.gauge("memory.heap.used",
            () -> Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory());
        counters.gauge("memory.heap.max", () -> Runtime.getRuntime().maxMemory());
        counters.gauge("memory.direct.used", NodeGauges::directMemoryUsed);
        counters.info("version", NodeGauges::version);
        counters.info("transport", () -> transportName);
        counters.info("transport.reason", () -> transportReason);
        for (final RequestTimer.Operation op : RequestTimer.Operation.values())
        {
            counters.info("latency." + op.tag(), () ->
            {
                final ServerMeters meters = requestTimes.get();
                return meters == null ? "count=0" : meters.summary(op);
            });
        }
    }

    /** The implementation version of the jar the server came from, or "development" outside a packaged jar. */
    public static String version()
    {
        final String v = NodeGauges.class.getPackage().getImplementationVersion();
        return v == null ? "development" : v;
    }

    private static long directMemoryUsed()
    {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if (pool.getName().equals("direct"))
            {
                return pool.getMemoryUsed();
            }
        }
        return -1;
    }
}
