package io.rdmakv.server.store;

/**
 * What an acknowledged write survives. Both modes keep RocksDB's write-ahead log on; they differ in when the log is
 * synced to stable storage relative to the acknowledgement.
 */
public enum Durability
{
    /**
     * The WAL record is written to the OS (page cache) before the write is acknowledged, without fsync: an
     * acknowledged write survives {@code kill -9} of the server process (the kernel holds the data) but not a power
     * loss or kernel crash.
     */
    DEFAULT,

    /**
     * The WAL is synced to stable storage before the write is acknowledged, so it survives power loss. Concurrent
     * writes share one sync through group commit (see {@link GroupCommitter}).
     */
    FSYNC;

    /** Parse a configuration value, case-insensitively. */
    public static Durability parse(final String value)
    {
        for (final Durability d : values())
        {
            if (d.name().equalsIgnoreCase(value.trim()))
            {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown durability '" + value + "' (expected DEFAULT or FSYNC)");
    }
}
