package io.rdmakv.server.store;

import org.rocksdb.WALRecoveryMode;

import java.util.Locale;

/**
 * What a node does with a damaged write-ahead log at start-up ({@code store.walRecovery}).
 *
 * <p>Every mode opens with RocksDB's {@code kTolerateCorruptedTailRecords} first (STRICT: {@code kAbsoluteConsistency}),
 * so an undamaged WAL, or one whose last record was cut short by a crash, opens the same way in every mode. Only
 * when that open reports a corruption do the two recovering modes reopen with the RocksDB mode named here, after
 * copying the WAL files aside; the node then logs at ERROR what was dropped.
 */
public enum WalRecovery
{
    /** Refuse any damage, a torn last record included ({@code kAbsoluteConsistency}): for a node that only ever
     * stops cleanly. */
    STRICT("strict", WALRecoveryMode.AbsoluteConsistency),

    /** The default: accept a last record cut short by a crash (it was never acknowledged in FSYNC mode, and a torn
     * write looks the same), refuse damage anywhere else ({@code kTolerateCorruptedTailRecords}). */
    TOLERATE_TAIL("tolerate-tail", WALRecoveryMode.TolerateCorruptedTailRecords),

    /** Operator's choice after a refusal: keep everything before the first damage, drop the damaged record and every
     * write after it ({@code kPointInTimeRecovery}); the store is a consistent prefix of the writes. */
    POINT_IN_TIME("point-in-time", WALRecoveryMode.PointInTimeRecovery),

    /** Operator's choice after a refusal: drop only the damaged records and replay everything else
     * ({@code kSkipAnyCorruptedRecords}); later writes survive, but the store may miss a write in the middle. */
    SKIP_CORRUPTED("skip-corrupted", WALRecoveryMode.SkipAnyCorruptedRecords);

    private final String setting;
    private final WALRecoveryMode rocksMode;

    WalRecovery(final String setting, final WALRecoveryMode rocksMode)
    {
        this.setting = setting;
        this.rocksMode = rocksMode;
    }

    /** The value of {@code store.walRecovery} that selects this mode. */
    public String setting()
    {
        return setting;
    }

    /** RocksDB's recovery mode of this choice. */
    WALRecoveryMode rocksMode()
    {
        return rocksMode;
    }

    /** True for the modes that open a damaged WAL by dropping data (after the first open refused it). */
    public boolean dropsDamagedRecords()
    {
        return this == POINT_IN_TIME || this == SKIP_CORRUPTED;
    }

    /** Parse {@code strict | tolerate-tail | point-in-time | skip-corrupted} (case-insensitive, '_' for '-'). */
    public static WalRecovery parse(final String value)
    {
        final String v = value.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (final WalRecovery mode : values())
        {
            if (mode.setting.equals(v))
            {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown WAL recovery '" + value +
            "' (expected strict, tolerate-tail, point-in-time or skip-corrupted)");
    }
}
