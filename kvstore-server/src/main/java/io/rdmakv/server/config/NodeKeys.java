package io.rdmakv.server.config;

import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.WalRecovery;

import java.nio.file.Path;
import java.util.List;

/**
 * Settings of the node itself: its id, where it keeps its data and how durably ({@code node.id}, {@code data.dir},
 * {@code durability}, {@code replication.*}, {@code store.*}). Each is declared once here; see {@link Setting}.
 */
public final class NodeKeys
{
    public static final Setting<Integer> NODE_ID = Setting.whole("node.id", "int", 1, 0, Integer.MAX_VALUE,
        "this node's id in the cluster map");

    public static final Setting<Path> DATA_DIR = Setting.path("data.dir", "./data", "RocksDB directory");

    public static final Setting<Durability> DURABILITY = Setting.choice("durability", "DEFAULT", "DEFAULT | FSYNC",
        Durability::parse, "DEFAULT survives kill -9; FSYNC survives power loss (group commit)");

    public static final Setting<Integer> REPLICATION_TIMEOUT_MS = Setting.whole("replication.timeoutMs", "ms", 1000,
        1, 600_000, "how long a primary waits for an in-sync backup's acknowledgement before it asks the " +
            "coordinator to remove that backup from the in-sync set");

    public static final Setting<Integer> REPLICATION_ACK_POLL_MICROS = Setting.whole("replication.ackPollMicros",
        "us", 0, 0, 10_000, "how long a primary's request thread keeps polling (yielding the core) for an in-sync " +
            "backup's acknowledgement before it sleeps until the answer wakes it; 0 = sleep at once; worth it only " +
            "with a core to spare (on an oversubscribed host the yields cost more than the wake-up)");

    public static final Setting<Long> WRITE_BUFFER_SIZE = Setting.size("store.writeBufferSize", "8MiB", 1L << 20,
        1L << 30, "RocksDB memtable size (write_buffer_size); the insert runs on the request thread, a small " +
            "memtable stays in cache");

    public static final Setting<WalRecovery> WAL_RECOVERY = Setting.choice("store.walRecovery",
        WalRecovery.TOLERATE_TAIL.setting(), "tolerate-tail | strict | point-in-time | skip-corrupted",
        WalRecovery::parse, "a damaged write-ahead log: tolerate-tail (drop a last record cut short by a crash, " +
            "refuse any other damage naming file, offset and fix) | strict (refuse a torn last record too) | " +
            "point-in-time (keep the writes before the damage) | skip-corrupted (drop only the damaged records); the " +
            "last two copy the WAL aside and log the loss at ERROR");

    public static final Setting<Long> DISK_RESERVE = Setting.size("store.diskReserve", "64MiB", 0, 1L << 40,
        "space preallocated in data.dir (file disk-reserve) and released when the disk is full (ENOSPC): RocksDB " +
            "resumes, PUTs are refused (DISK_FULL) and DELETEs served until twice this is free again, then the " +
            "reserve is re-created; 0 = none; raised to store.writeBufferSize when smaller (RocksDB's resume " +
            "flushes the memtable)");

    /** In the order {@code --list-settings} shows them. */
    static final List<Setting<?>> ALL = List.of(NODE_ID, DATA_DIR, DURABILITY, REPLICATION_TIMEOUT_MS,
        REPLICATION_ACK_POLL_MICROS, WRITE_BUFFER_SIZE, WAL_RECOVERY, DISK_RESERVE);

    private NodeKeys()
    {
    }
}
