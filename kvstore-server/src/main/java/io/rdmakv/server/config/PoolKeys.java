package io.rdmakv.server.config;

import java.util.List;

/**
 * Settings of the pinned, registered memory pool and its index ({@code pool.*}, {@code index.avgEntryBytes}). Each is
 * declared once here; see {@link Setting}.
 */
public final class PoolKeys
{
    public static final Setting<Long> SIZE = Setting.size("pool.size", "64MiB", 1L << 20, 1L << 40,
        "pinned, registered pool (header + index + extents)")
        .requiring(n -> (n & 4095) == 0, "a multiple of 4096 bytes (a page)");

    public static final Setting<Long> PARTITION_SIZE = Setting.size("pool.partitionSize", "1GiB", 1L << 16, 1L << 30,
        "pool view partition").requiring(n -> Long.bitCount(n) == 1, "a power of two");

    public static final Setting<PinMode> PIN = Setting.choice("pool.pin", "AUTO", "AUTO | REQUIRED | BEST_EFFORT | OFF",
        t -> PinMode.valueOf(SettingValues.upper(t)), "how the pool is pinned; AUTO: REQUIRED on verbs, else " +
            "BEST_EFFORT");

    public static final Setting<String> HUGE_PAGES = Setting.choice("pool.hugePages", "NONE",
        "NONE | TRANSPARENT | EXPLICIT", PoolKeys::hugePages, "huge pages under the pool");

    public static final Setting<Integer> RECLAIM_GRACE_MS = Setting.whole("pool.reclaimGraceMs", "ms", 100, 0,
        3_600_000, "grace period before a freed extent is reused (longer than a client read)");

    public static final Setting<Boolean> SCRIBBLE_RETIRED = Setting.flag("pool.scribbleRetired", false,
        "test/debug: overwrite an extent the moment it is superseded (stale one-sided reads then fail their check)");

    public static final Setting<Integer> INDEX_AVG_ENTRY_BYTES = Setting.whole("index.avgEntryBytes", "bytes", 224,
        64, ServerConfig.FORMAT_MAX_KEY_PLUS_VALUE, "expected average extent size; sizes the index (at most 16 B of " +
            "index per key)");

    /** In the order {@code --list-settings} shows them. */
    static final List<Setting<?>> ALL = List.of(SIZE, PARTITION_SIZE, PIN, HUGE_PAGES, RECLAIM_GRACE_MS,
        SCRIBBLE_RETIRED, INDEX_AVG_ENTRY_BYTES);

    private PoolKeys()
    {
    }

    private static String hugePages(final String text)
    {
        final String mode = SettingValues.upper(text);
        if (!List.of("NONE", "TRANSPARENT", "EXPLICIT").contains(mode))
        {
            throw new IllegalArgumentException("must be NONE, TRANSPARENT or EXPLICIT");
        }
        return mode;
    }
}
