package io.rdmakv.server.store;

import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Opens a {@link RocksStore}: creates the data directory, sets RocksDB's options (info-log rotation, no compression,
 * the memtable size), opens the default, {@value RocksStore#KEYS_FAMILY} and {@value WriteRecords#FAMILY} column
 * families (the last created in a store of an older format) under a
 * {@link WalRecovery} policy ({@link WalRecoveryOpener}) and migrates a store of the format before the slot prefix
 * ({@link LegacyKeyMigration}), refuses one of another key-to-slot mapping ({@link SlotHashMark}), with the
 * {@link DiskFullGuard}'s listener; what it opened is closed again when a step
 * fails. Stateless; runs on the caller's thread.
 */
final class RocksStoreOpener
{
    /**
     * RocksDB's own info logs kept ({@code keep_log_file_num}): LOG and at most this many minus one LOG.old.* files.
     * Every open rotates LOG, so RocksDB's default of 1,000 left one file per restart.
     */
    public static final int INFO_LOG_FILES = 5;
    /** Size at which RocksDB's info LOG rotates ({@code max_log_file_size}): with {@link #INFO_LOG_FILES}, at most
     * 80 MiB of info logs. */
    public static final long INFO_LOG_FILE_BYTES = 16L << 20;

    /** Logs as the store it opens. */
    private static final Logger LOG = LoggerFactory.getLogger(RocksStore.class);

    private RocksStoreOpener()
    {
    }

    /** See {@link RocksStore#open(Path, Durability, int, long, WalRecovery, long)}. */
    static RocksStore open(
        final Path directory, final Durability durability, final int queueCapacity, final long writeBufferSize,
        final WalRecovery walRecovery, final long diskReserve)
    {
        if (writeBufferSize < 64 * 1024)
        {
            throw new IllegalArgumentException("writeBufferSize must be at least 64 KiB: " + writeBufferSize);
        }
        try
        {
            Files.createDirectories(directory);
        }
        catch (final IOException ex)
        {
            throw new StoreException("cannot create data directory " + directory.toAbsolutePath() + ": " + ex, ex);
        }
        final DiskFullGuard diskGuard = new DiskFullGuard(directory, diskReserve, writeBufferSize);
        final DBOptions options = new DBOptions()
            .setCreateIfMissing(true)
            .setCreateMissingColumnFamilies(true)
            // Shutdown flushes explicitly; the WAL covers everything else.
            .setAvoidFlushDuringShutdown(false)
            // The families hold what must agree after a WAL lost its tail (a disk losing unsynced data, a cut copy):
            // a replica's applied sequence and the write-id records (write-state) with the data they describe. One
            // family flushed alone (its memtable full, or the WAL size limit) would keep a sequence or record whose
            // data the lost WAL held: a restarted replica would answer a reconcile with writes it no longer has, a
            // retry would be answered from a record of a lost write. Atomic flush writes every family's memtable
            // together, so what survives is one point of the write order.
            .setAtomicFlush(true)
            .setKeepLogFileNum(INFO_LOG_FILES)
            .setMaxLogFileSize(INFO_LOG_FILE_BYTES)
            .setListeners(List.of(diskGuard.listener()));
        final ColumnFamilyOptions familyOptions = new ColumnFamilyOptions()
            .setCompressionType(CompressionType.NO_COMPRESSION)
            .setWriteBufferSize(writeBufferSize);
        final List<ColumnFamilyHandle> families = new ArrayList<>(3);
        try
        {
            final RocksDB db = WalRecoveryOpener.open(options, directory, walRecovery, List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, familyOptions),
                new ColumnFamilyDescriptor(RocksStore.KEYS_FAMILY.getBytes(StandardCharsets.US_ASCII),
                    familyOptions),
                new ColumnFamilyDescriptor(WriteRecords.FAMILY.getBytes(StandardCharsets.US_ASCII), familyOptions),
                new ColumnFamilyDescriptor(RocksStore.SLOT_KEYS_FAMILY.getBytes(StandardCharsets.US_ASCII),
                    familyOptions)),
                families);
            LOG.info("RocksDB opened at {} (durability {}, WAL on, recovery {}, memtable {} KiB)",
                directory.toAbsolutePath(), durability, walRecovery.setting(), writeBufferSize >> 10);
            final String loss = checkSequenceMark(directory, db.getLatestSequenceNumber(), walRecovery);
            final RocksStore store = new RocksStore(directory, durability, options, familyOptions, families, db,
                queueCapacity, loss, diskGuard);
            try
            {
                // Before the migration: keys it moves are placed by this build's mapping, which a store of
                // slot-prefixed keys from an earlier mapping does not hold.
                // The old families first: a store of bare values holds its keys there.
                SlotHashMark.check(directory, db, families.get(3), families.get(1));
                LegacyKeyMigration.migrate(db, families.get(0), families.get(3), directory);
                RecordMigration.migrate(db, families.get(3), families.get(1), directory);
            }
            catch (final RuntimeException ex)
            {
                store.close();
                throw ex;
            }
            return store;
        }
        catch (final StoreException ex)
        {
            options.close();
            familyOptions.close();
            diskGuard.closeListener();
            throw ex;
        }
    }

    /**
     * Compare the sequence RocksDB recovered with the one the store last recorded ({@link SequenceMark}) and log at
     * ERROR what is missing.
     *
     * @return the ERROR line, or null when nothing recorded is missing (or there is no record).
     */
    private static String checkSequenceMark(final Path directory, final long recovered, final WalRecovery recovery)
    {
        final SequenceMark mark;
        try
        {
            mark = SequenceMark.read(directory).orElse(null);
        }
        catch (final IOException ex)
        {
            LOG.warn("cannot read {}: {} (writes the WAL lost, if any, cannot be counted)",
                directory.resolve(SequenceMark.FILE), ex.toString());
            return null;
        }
        if (mark == null)
        {
            return null;
        }
        final String loss = mark.lossReport(recovered, directory.resolve(SequenceMark.FILE).toAbsolutePath(),
            recovery).orElse(null);
        if (loss != null)
        {
            LOG.error(loss);
        }
        return loss;
    }
}
