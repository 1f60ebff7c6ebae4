package io.rdmakv.server.store;

import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.WALRecoveryMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Opens RocksDB under a {@link WalRecovery} policy, so that a damaged write-ahead log never loses data silently.
 *
 * <p>The WAL files are scanned first ({@link WalScan}, a few milliseconds per MiB), then RocksDB opens with
 * {@code kTolerateCorruptedTailRecords} ({@code kAbsoluteConsistency} for STRICT). A torn last record is dropped by
 * RocksDB and reported here at WARN. When RocksDB reports a corruption, the node refuses to start with the damaged
 * file, offset and the fix, unless the operator chose a recovering mode: then the WAL files are copied aside, RocksDB
 * reopens with that mode, and what was dropped is logged at ERROR.
 */
final class WalRecoveryOpener
{
    private static final Logger LOG = LoggerFactory.getLogger(WalRecoveryOpener.class);
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    private WalRecoveryOpener()
    {
    }

    /**
     * Open {@code directory} with {@code options} (whose WAL recovery mode this sets) and the column families
     * {@code families}, whose handles are added to {@code handles}.
     *
     * @throws StoreException naming the damaged file, offset and fix when the WAL is damaged and {@code recovery}
     *                        does not drop damaged records, or with RocksDB's message for any other failure.
     */
    static RocksDB open(final DBOptions options, final Path directory, final WalRecovery recovery,
        final List<ColumnFamilyDescriptor> families, final List<ColumnFamilyHandle> handles)
    {
        final String path = directory.toAbsolutePath().toString();
        final List<WalFileReport> wal = scan(directory);
        options.setWalRecoveryMode(recovery == WalRecovery.STRICT ? WALRecoveryMode.AbsoluteConsistency :
            WALRecoveryMode.TolerateCorruptedTailRecords);
        try
        {
            final RocksDB db = RocksDB.open(options, path, families, handles);
            reportTornTail(wal);
            return db;
        }
        catch (final RocksDBException ex)
        {
            final WalFileReport damage = firstDamage(wal, recovery == WalRecovery.STRICT);
            if (!isCorruption(ex) || damage == null)
            {
                throw new StoreException("cannot open RocksDB at " + path + ": " + ex.getMessage(), ex);
            }
            if (!recovery.dropsDamagedRecords())
            {
                throw new StoreException(refusal(damage, recovery, ex), ex);
            }
        }
        final Path copy = copyAside(directory);
        options.setWalRecoveryMode(recovery.rocksMode());
        try
        {
            final RocksDB db = RocksDB.open(options, path, families, handles);
            LOG.error(dropped(wal, recovery, db.getLatestSequenceNumber(), copy));
            return db;
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("cannot open RocksDB at " + path + " even with store.walRecovery=" +
                recovery.setting() + ": " + ex.getMessage() + "; the WAL files as found are in " + copy, ex);
        }
    }

    private static List<WalFileReport> scan(final Path directory)
    {
        try
        {
            return WalScan.scanAll(directory);
        }
        catch (final IOException ex)
        {
            LOG.warn("cannot scan the write-ahead log in {}: {} (RocksDB still checks it)", directory, ex.toString());
            return List.of();
        }
    }

    private static boolean isCorruption(final RocksDBException ex)
    {
        final Status status = ex.getStatus();
        return status != null && status.getCode() == Status.Code.Corruption;
    }

    private static WalFileReport firstDamage(final List<WalFileReport> wal, final boolean tornTailToo)
    {
        for (final WalFileReport r : wal)
        {
            if (r.damaged() || (tornTailToo && r.tornTail()))
            {
                return r;
            }
        }
        return null;
    }

    private static void reportTornTail(final List<WalFileReport> wal)
    {
        for (final WalFileReport r : wal)
        {
            if (r.tornTail())
            {
                LOG.warn("write-ahead log {} ends in a partial record of {} bytes at offset {}: dropped as a write " +
                    "cut short by a crash (every write before it is kept; a file truncated there looks the same)",
                    r.file(), r.tornTailBytes(), r.tornTailOffset());
            }
        }
    }

    private static String refusal(final WalFileReport damage, final WalRecovery recovery, final RocksDBException ex)
    {
        final boolean damaged = damage.damaged();
        final long offset = damaged ? damage.firstDamageOffset() : damage.tornTailOffset();
        final String what = damaged ? damage.firstDamageReason() + ", " + damage.damagedBytes() + " bytes unreadable" :
            "a partial last record of " + damage.tornTailBytes() + " bytes, refused by store.walRecovery=strict";
        return "the write-ahead log is damaged: " + damage.file().toAbsolutePath() + " at offset " + offset + " (" +
            what + "; intact writes up to sequence " + damage.lastSequenceBeforeDamage() + " before it, up to " +
            damage.lastSequence() + " in the file). RocksDB says: " + ex.getMessage() + ". The node does not start " +
            "rather than lose acknowledged writes silently (store.walRecovery=" + recovery.setting() + "). Fix: " +
            "restore this data directory from a replica or a backup; or accept the loss and start with " +
            "the setting (--config FILE or --set) store.walRecovery=point-in-time (keeps every write before the damage, drops the rest) or " +
            "store.walRecovery=skip-corrupted (drops only the damaged records); the WAL files are copied aside " +
            "first and the loss is logged at ERROR";
    }

    private static String dropped(
        final List<WalFileReport> wal, final WalRecovery recovery, final long recovered, final Path copy)
    {
        final StringBuilder where = new StringBuilder();
        long unreadable = 0;
        long firstSequence = Long.MAX_VALUE;
        long lastSequence = -1;
        long intactWrites = 0;
        for (final WalFileReport r : wal)
        {
            if (r.damaged())
            {
                where.append(where.length() == 0 ? "" : ", ").append(r.file().getFileName()).append(" at offset ")
                    .append(r.firstDamageOffset()).append(" (").append(r.firstDamageReason()).append(')');
                unreadable += r.damagedBytes();
            }
            if (r.firstSequence() >= 0)
            {
                firstSequence = Math.min(firstSequence, r.firstSequence());
                lastSequence = Math.max(lastSequence, r.lastSequence());
                intactWrites += r.writes();
            }
        }
        // Point-in-time stops at the first damage: every later write is gone. Skip-corrupted replays the rest: the
        // writes in the damaged records are the gaps in the intact records' sequence numbers.
        final long lost = recovery == WalRecovery.POINT_IN_TIME ? Math.max(0, lastSequence - recovered) :
            Math.max(0, lastSequence - firstSequence + 1 - intactWrites);
        return "store.walRecovery=" + recovery.setting() + " dropped write-ahead log data to start: " +
            (where.length() == 0 ? "damage RocksDB found" : where) + ", " + unreadable + " bytes unreadable; " +
            "recovered up to sequence " + recovered + ", the WAL's intact records reach sequence " + lastSequence +
            ": at least " + lost + " store entries lost (a write is one, or two or three with its write-id record " +
            "and replication sequence). The WAL files as found are copied to " + copy;
    }

    private static Path copyAside(final Path directory)
    {
        final String stamp = "wal-damaged-" + LocalDateTime.now().format(STAMP);
        Path copy = directory.resolve(stamp);
        for (int n = 2; Files.exists(copy); n++)
        {
            copy = directory.resolve(stamp + "-" + n);
        }
        try
        {
            Files.createDirectories(copy);
            for (final Path file : WalScan.walFiles(directory))
            {
                Files.copy(file, copy.resolve(file.getFileName()));
            }
            return copy;
        }
        catch (final IOException ex)
        {
            throw new StoreException("cannot copy the damaged write-ahead log aside to " + copy + " before " +
                "recovering (nothing was dropped): " + ex, ex);
        }
    }
}
