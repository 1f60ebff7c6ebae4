package io.rdmakv.server.metrics;

import io.rdmakv.server.counters.ServerCounter;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What each number the node keeps is called on the metrics endpoint, and its HELP text, following the Prometheus
 * naming practices: snake_case, base units in the name ({@code _bytes}, {@code _seconds}), {@code _total} on counters
 * (added by the registry's naming convention). STATS keeps its own labels ({@code pool.bytesInUse}); only the metric
 * names are translated here.
 */
final class MeterCatalog
{
    /** How a STATS gauge is exported: under {@code name} (dots, snake_case parts), as a counter or a gauge. */
    record GaugeExport(String name, boolean total, String help)
    {
    }

    /** STATS gauges not exported, and the family that carries the same number. */
    static final Map<String, String> GAUGES_NOT_EXPORTED = Map.of(
        "uptime.ms", "process_uptime_seconds",
        "store.keysEstimate", "rdmakv_rocksdb_keys_estimate",
        "memory.heap.used", "jvm_memory_used_bytes{area=\"heap\"}",
        "memory.heap.max", "jvm_memory_max_bytes{area=\"heap\"}",
        "memory.direct.used", "jvm_buffer_memory_used_bytes{id=\"direct\"}");

    /** STATS gauge label -> its metric. */
    static final Map<String, GaugeExport> GAUGES = Map.of(
        "pool.keys", new GaugeExport("rdmakv.server.pool.keys", false, "Keys in the pool's index now"),
        "pool.evictions", new GaugeExport("rdmakv.server.pool.evictions", true,
            "Values evicted from the pool to make room (still in RocksDB)"),
        "pool.complete", new GaugeExport("rdmakv.server.pool.complete", false,
            "1 while the pool holds every key of the store (a miss in the pool is then a miss in the store)"),
        "pool.bytesInUse", new GaugeExport("rdmakv.server.pool.used.bytes", false,
            "Bytes of the pool's data area holding values now"),
        "pool.retiredBytes", new GaugeExport("rdmakv.server.pool.retired.bytes", false,
            "Bytes of the pool's data area retired (overwritten or deleted values) and not yet reusable"),
        "registrations", new GaugeExport("rdmakv.server.memory.registrations", false,
            "Memory registrations the transport holds (the pool is registered once: 1 is expected)"),
        "store.syncs", new GaugeExport("rdmakv.server.store.syncs", true,
            "WAL syncs RocksDB made for this node's writes (durability FSYNC)"),
        "memory.pool.bytes", new GaugeExport("rdmakv.server.memory.pool.bytes", false,
            "Bytes of the pool mapping (pool.size)"),
        "memory.pinned.bytes", new GaugeExport("rdmakv.server.memory.pinned.bytes", false,
            "Bytes of the pool pinned in RAM (0 when the pool is not pinned)"));

    /** Counters that are levels (up and down), exported as gauges. */
    static final List<ServerCounter> LEVELS =
        List.of(ServerCounter.CONNECTIONS, ServerCounter.CONTROL_CONNECTIONS, ServerCounter.IN_FLIGHT_WRITES);

    private static final Map<ServerCounter, String> HELP = new EnumMap<>(ServerCounter.class);

    static
    {
        help(ServerCounter.PUTS, "PUT requests answered");
        help(ServerCounter.DELETES, "DELETE requests answered");
        help(ServerCounter.GETS_RPC, "GETs served by the node (RPC); one-sided GETs read the pool without the " +
            "node's CPU and cannot be counted here: see the clients' rdmakv_client_get_oneSided_hits_total");
        help(ServerCounter.GETS_RPC_FROM_POOL, "RPC GETs answered from the pool");
        help(ServerCounter.GETS_RPC_FROM_STORE, "RPC GETs answered from RocksDB (not in the pool)");
        help(ServerCounter.GETS_RPC_NOT_FOUND, "RPC GETs of a key that does not exist");
        help(ServerCounter.PROMOTIONS, "Values copied from RocksDB into the pool after a GET missed the pool");
        help(ServerCounter.STATS_REQUESTS, "STATS requests answered");
        help(ServerCounter.MALFORMED_REQUESTS, "Requests the node could not decode: messages answered MALFORMED, and " +
            "frames the data port's transport refused (logged as a protocol error; the connection is closed)");
        help(ServerCounter.LIMIT_REJECTIONS, "Requests refused for a key or value over the limits");
        help(ServerCounter.WRONG_NODE, "Requests for a slot this node does not serve (answered WRONG_NODE)");
        help(ServerCounter.BUSY, "Requests refused as BUSY (too many writes in flight, or a scan that cannot run now)");
        help(ServerCounter.STORE_ERRORS, "RocksDB operations that failed (a full disk, I/O errors)");
        help(ServerCounter.NOT_CACHED, "Writes applied to RocksDB but not to the pool (no room)");
        help(ServerCounter.SEND_FAILURES, "Answers the transport could not send");
        help(ServerCounter.CONNECTIONS, "Data connections open now");
        help(ServerCounter.CONNECTIONS_TOTAL, "Data connections accepted");
        help(ServerCounter.CONNECTIONS_REFUSED, "Data connections refused (max.connections reached)");
        help(ServerCounter.CONTROL_CONNECTIONS, "Control connections open now");
        help(ServerCounter.HANDSHAKES, "Control handshakes answered with a WELCOME");
        help(ServerCounter.HANDSHAKE_REJECTS, "Control handshakes refused (wrong credential, bad HELLO)");
        help(ServerCounter.IN_FLIGHT_WRITES, "Writes taken and not yet answered now");
        help(ServerCounter.DELETES_NOT_FOUND, "DELETEs of a key that did not exist");
        help(ServerCounter.RECORD_WRITES, "Record writes taken (conditional writes, counters, expiry changes)");
        help(ServerCounter.CONDITIONS_FAILED, "Conditional writes refused: their condition did not hold");
        help(ServerCounter.EXPIRED_REMOVED, "Expired keys the background sweep deleted");
        help(ServerCounter.BATCH_WRITES, "Atomic multi-key writes (BATCH_WRITE) taken");
        help(ServerCounter.BATCH_CROSSSLOT, "Atomic multi-key writes refused: their keys hash to several slots");
        help(ServerCounter.REPLICATION_WITHHELD, "Writes withheld from an in-sync backup whose link dropped mid-write");
        help(ServerCounter.WINDOWS_BOUND, "Memory windows bound, one per data session on a transport with windows");
        help(ServerCounter.WINDOWS_REVOKED, "Memory windows closed as their session's user was removed or changed");
        help(ServerCounter.REPLICATION_WINDOW_FULL,
            "Writes refused BUSY while a backup had a whole reconcile window of this node's writes unanswered");
        help(ServerCounter.GETS_RPC_COMPLETE_MISSES, "RPC GET misses answered from the complete pool, no RocksDB read");
        help(ServerCounter.ATTACHES, "Data connections attached with a valid session ticket");
        help(ServerCounter.ATTACH_REFUSALS, "Data connections refused at attach (bad or expired ticket, timeout)");
        help(ServerCounter.DATA_SHED, "Unauthenticated data connections closed to make room for newer ones");
        help(ServerCounter.CONTROL_SHED, "Unauthenticated control connections closed to make room for newer ones");
        help(ServerCounter.CONTROL_TIMEOUTS, "Control connections closed for sending no HELLO in time");
        help(ServerCounter.CREDENTIALS_THROTTLED, "HELLOs delayed or refused because their source failed too often");
        help(ServerCounter.DATA_TIMEOUTS, "Data connections that did not attach in time");
        help(ServerCounter.RETRIES_ANSWERED, "Retried writes answered with the first attempt's outcome");
        help(ServerCounter.RECONCILES, "Backups this node reconciled as a new primary");
        help(ServerCounter.RECONCILE_FIX_UPS, "Fix-ups this node's reconciles sent to backups");
        help(ServerCounter.WRITE_IDS_UNDONE, "Write-id records dropped because a new primary's fix-up undid them");
        help(ServerCounter.DISK_FULL_REFUSALS, "PUTs refused as DISK_FULL while the node's disk is full (DELETEs are " +
            "served)");
        help(ServerCounter.FORBIDDEN, "Requests and admin commands refused because the user's role or key prefixes " +
            "do not allow them");
    }

    private MeterCatalog()
    {
    }

    private static void help(final ServerCounter counter, final String text)
    {
        HELP.put(counter, text);
    }

    /** HELP of {@code counter} (every counter has one: {@code MeterCatalogTest}). */
    static String help(final ServerCounter counter)
    {
        return HELP.get(counter);
    }

    /** The meter name of {@code counter}: {@code rdmakv.server.} and its label in snake_case parts. */
    static String name(final ServerCounter counter)
    {
        // connections.data (a level) and connections.data.total would both be rdmakv_server_connections_data.
        return "rdmakv.server." + snake(counter == ServerCounter.CONNECTIONS_TOTAL ? "connections.data.accepted" :
            counter.label());
    }

    /** {@code gets.rpc.notFound} -> {@code gets.rpc.not_found}: camelCase parts to snake_case, dots kept. */
    static String snake(final String label)
    {
        final StringBuilder sb = new StringBuilder(label.length() + 8);
        for (int i = 0; i < label.length(); i++)
        {
            final char c = label.charAt(i);
            if (Character.isUpperCase(c))
            {
                if (i > 0 && label.charAt(i - 1) != '.')
                {
                    sb.append('_');
                }
                sb.append(Character.toLowerCase(c));
            }
            else
            {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
