package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.Status;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The durable store of one node: RocksDB in its own data directory with the write-ahead log on.
 *
 * <p>Durability (see {@link Durability}):
 * <ul>
 *   <li>{@code DEFAULT}: every write goes to the WAL (no fsync) on the calling thread, so it is in the kernel before
 *       the call returns and survives {@code kill -9}. Fast enough to run on the server's writer thread.</li>
 *   <li>{@code FSYNC}: every write is handed to the {@link GroupCommitter}; it completes after the synced WAL write of
 *       its batch. {@link #submitPut}/{@link #submitDelete} never block the caller; {@link #submitBatch} hands it
 *       an atomic multi-key write as one unit (all of it in one group commit).</li>
 * </ul>
 *
 * <p>Keys: every key is stored with its cluster slot in front ({@link StoreKeys}) in the column family
 * {@value #KEYS_FAMILY}, so a slot range is one interval of keys ({@link RangeStore}). The {@code byte[]} methods take
 * client keys and add the prefix, and {@link #get(byte[])}, {@link #put(byte[], byte[])} and {@link #forEach} deal in
 * values (the record's header added or taken off); every other method deals in the stored records
 * ({@link ValueRecord}: data version, expiry, value), as RocksDB holds them; the direct-buffer methods ({@link #put(ByteBuffer, ByteBuffer)},
 * {@link #get(ByteBuffer, ByteBuffer)}, {@link #delete(ByteBuffer)}) take store keys (prefix included) between their
 * position and limit and allocate nothing on the Java side; the server's writer thread uses them with preallocated
 * scratch buffers in DEFAULT mode. A store written before the prefix (keys in the default column family) is migrated
 * when opened ({@link LegacyKeyMigration}). Opening (directory, RocksDB options, column families, WAL recovery):
 * {@link RocksStoreOpener}. A full disk: {@link DiskFullGuard} (a reserve file released on ENOSPC; PUTs refused,
 * DELETEs served until there is room again), told of every write that failed with ENOSPC.
 *
 * <p>Thread-safety: all methods may be called from any thread (RocksDB is thread-safe).
 */
public final class RocksStore implements AutoCloseable
{
    /** The callback of records written alone: their outcome is not reported. */
    private static final WriteCallback IGNORED = (context, failure) -> { };
    /** Returned by {@link #get(ByteBuffer, ByteBuffer)} when the key is absent. */
    public static final int NOT_FOUND = RocksDB.NOT_FOUND;
    /**
     * Memtable size unless configured: 8 MiB rather than RocksDB's 64 MiB. Measured on 100-byte updates of 100,000
     * keys in batches of 16 (benchmarks/RESULTS.md, fourth pass): CPU on the writing thread 2.3-3.0 us per put against
     * 3.5-4.0 us at 64 MiB, the process's total about the same (flushes on RocksDB's threads do the rest).
     */
    public static final long DEFAULT_WRITE_BUFFER_SIZE = 8L << 20;
    /** Writes that may wait for the group commit (FSYNC) unless configured. */
    public static final int DEFAULT_QUEUE_CAPACITY = 65_536;
    /**
     * The column family of the slot-prefixed keys and their value records ({@link io.rdmakv.protocol.layout.ValueRecord}).
     * The default family holds only keys of the format before slot prefixes, {@value #SLOT_KEYS_FAMILY} only bare
     * values of the format before records; both are migrated here when the store is opened.
     */
    public static final String KEYS_FAMILY = "value-records";
    /** The family of slot-prefixed keys with bare values (before value records; {@link RecordMigration}). */
    public static final String SLOT_KEYS_FAMILY = "slot-keys";
    private static final Logger LOG = LoggerFactory.getLogger(RocksStore.class);
    /** The value buffer of an existence check: capacity 0, so RocksDB reports the length, copies nothing, and the
     * buffer can be shared by every thread (its position and limit cannot move). */
    private static final ByteBuffer NO_VALUE = ByteBuffer.allocateDirect(0);

    static
    {
        RocksDB.loadLibrary();
    }

    private final Path directory;
    private final Durability durability;
    private final DBOptions options;
    private final ColumnFamilyOptions familyOptions;
    private final List<ColumnFamilyHandle> families;
    private final ColumnFamilyHandle keys;
    private final WriteOptions walOptions;
    private final ReadOptions readOptions;
    private final RocksDB db;
    private final GroupCommitter committer;
    private final WriteRecords writeRecords;
    private volatile boolean closed;
    /** What opening found missing against the last {@link SequenceMark}, or null. */
    private final String walLoss;
    private final SequenceMarker marker;
    private final DiskFullGuard diskGuard;
    /** The versions of {@link #put(byte[], byte[])} (tools and tests). */
    private final DataVersions versions = new DataVersions(0);

    /** Called by {@link RocksStoreOpener} once RocksDB is open. */
    RocksStore(
        final Path directory, final Durability durability, final DBOptions options,
        final ColumnFamilyOptions familyOptions, final List<ColumnFamilyHandle> families, final RocksDB db,
        final int queueCapacity, final String walLoss, final DiskFullGuard diskGuard)
    {
        this.directory = directory;
        this.durability = durability;
        this.options = options;
        this.familyOptions = familyOptions;
        this.families = families;
        this.keys = families.get(1);
        this.db = db;
        this.writeRecords = new WriteRecords(db, families.get(2));
        // WAL on (disableWAL=false), no sync: the record reaches the kernel before the write returns.
        this.walOptions = new WriteOptions().setSync(false).setDisableWAL(false);
        this.readOptions = new ReadOptions();
        this.committer = durability == Durability.FSYNC ?
            new GroupCommitter(db, keys, new WriteRecords(db, families.get(2)), queueCapacity, 1024,
                "rdmakv-group-commit") : null;
        this.walLoss = walLoss;
        this.marker = new SequenceMarker(directory, db);
        this.diskGuard = diskGuard;
        diskGuard.start(new DiskActions(db, keys, families, walOptions));
    }

    /**
     * What opening found missing: RocksDB recovered a lower sequence number than the store had recorded
     * ({@link SequenceMark}); the same line was logged at ERROR.
     *
     * @return the line, or empty when nothing recorded was missing.
     */
    public Optional<String> walLossReport()
    {
        return Optional.ofNullable(walLoss);
    }

    /** Record the latest sequence number now, when it moved ({@link SequenceMarker}). */
    void recordSequenceMark(final String event)
    {
        marker.record(event);
    }

    /**
     * Open (creating if needed) the store in {@code directory} with the default committer queue
     * ({@value #DEFAULT_QUEUE_CAPACITY} writes), memtable ({@link #DEFAULT_WRITE_BUFFER_SIZE}) and WAL recovery
     * ({@link WalRecovery#TOLERATE_TAIL}).
     */
    public static RocksStore open(final Path directory, final Durability durability)
    {
        return open(directory, durability, DEFAULT_QUEUE_CAPACITY, DEFAULT_WRITE_BUFFER_SIZE,
            WalRecovery.TOLERATE_TAIL, 0);
    }

    /**
     * Open (creating if needed) the store in {@code directory}.
     *
     * @param queueCapacity how many writes may wait for the group commit before submissions are refused (FSYNC).
     * @param writeBufferSize RocksDB's memtable size ({@code write_buffer_size}), at least 64 KiB: DEFAULT durability
     *                        inserts into the memtable on the request thread, where a skiplist that stays in cache is
     *                        cheaper per write ({@link #DEFAULT_WRITE_BUFFER_SIZE}); the WAL is written either way.
     * @param walRecovery what to do with a damaged write-ahead log ({@link WalRecoveryOpener}).
     * @param diskReserve bytes of the reserve file kept for a full disk ({@link DiskFullGuard}); 0 for none (tools
     *                    that open a store no node serves).
     * @throws StoreException if the directory cannot be created or RocksDB refuses to open (e.g. locked by another
     *                        process, or a damaged WAL that {@code walRecovery} does not drop: the message names the
     *                        file, the offset and the fix).
     */
    public static RocksStore open(
        final Path directory, final Durability durability, final int queueCapacity, final long writeBufferSize,
        final WalRecovery walRecovery, final long diskReserve)
    {
        return RocksStoreOpener.open(directory, durability, queueCapacity, writeBufferSize, walRecovery, diskReserve);
    }

    /** The full-disk state: PUTs are refused while {@link DiskFullGuard#full()}. */
    public DiskFullGuard diskGuard()
    {
        return diskGuard;
    }

    public Path directory()
    {
        return directory;
    }

    public Durability durability()
    {
        return durability;
    }

    /** The value of client key {@code key} (its record's value), or {@code null}. */
    public byte[] get(final byte[] key)
    {
        final byte[] record = getRecord(key);
        return record == null ? null : ValueRecord.value(record);
    }

    /** The stored record ({@link ValueRecord}: data version, expiry, value) of client key {@code key}, or null. */
    public byte[] getRecord(final byte[] key)
    {
        ensureOpen();
        try
        {
            return db.get(keys, readOptions, StoreKeys.encode(key));
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("get failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * Read store key {@code key} (direct buffer, position..limit, {@link StoreKeys}) into {@code value} (direct
     * buffer, from its position).
     *
     * @return the full length of the stored value (it was copied only as far as {@code value} had room), or
     * {@link #NOT_FOUND}.
     */
    public int get(final ByteBuffer key, final ByteBuffer value)
    {
        ensureOpen();
        try
        {
            return db.get(keys, readOptions, key, value);
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("get failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * True when store key {@code key} (direct buffer, position..limit) is stored. Allocates nothing: RocksDB's
     * may-exist check answers most absent keys from memory, the rest are read into an empty buffer (only the length
     * is wanted).
     * The key buffer's position may move; reset it before reusing the buffer.
     */
    public boolean contains(final ByteBuffer key)
    {
        ensureOpen();
        final int position = key.position();
        try
        {
            if (!db.keyMayExist(keys, readOptions, key))
            {
                return false;
            }
            key.position(position);
            return db.get(keys, readOptions, key, NO_VALUE) != NOT_FOUND;
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("get failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * Store client {@code key -> value} as a record of a fresh data version (this store's own, node bits 0) and no
     * expiry, and return once it is durable per {@link #durability()} (tools and tests; a node versions its writes
     * itself, {@link #putRecord}).
     */
    public void put(final byte[] key, final byte[] value)
    {
        final long version;
        synchronized (versions)
        {
            version = versions.next();
        }
        putRecord(key, ValueRecord.of(value, version, 0));
    }

    /** Store client {@code key -> record} ({@link ValueRecord}) as given, once durable per {@link #durability()}. */
    public void putRecord(final byte[] key, final byte[] record)
    {
        ValueRecord.check(record);
        if (committer != null)
        {
            awaitCommit(key, record);
            return;
        }
        ensureOpen();
        try
        {
            db.put(keys, walOptions, StoreKeys.encode(key), record);
        }
        catch (final RocksDBException ex)
        {
            throw writeFailed("put failed", ex);
        }
    }

    /** Delete client key {@code key} and return once the deletion is durable per {@link #durability()}. */
    public void delete(final byte[] key)
    {
        if (committer != null)
        {
            awaitCommit(key, null);
            return;
        }
        ensureOpen();
        try
        {
            db.delete(keys, walOptions, StoreKeys.encode(key));
        }
        catch (final RocksDBException ex)
        {
            throw writeFailed("delete failed", ex);
        }
    }

    /**
     * DEFAULT durability only: store store key -> value from direct buffers (position..limit) on the calling thread,
     * without allocation.
     *
     * @throws IllegalStateException in FSYNC mode (use {@link #submitPut}).
     */
    public void put(final ByteBuffer key, final ByteBuffer value)
    {
        requireInline();
        try
        {
            db.put(keys, walOptions, key, value);
        }
        catch (final RocksDBException ex)
        {
            throw writeFailed("put failed", ex);
        }
    }

    /** Add store key -> value (direct buffers, position..limit) to {@code batch}, in this store's key family. */
    public void addPut(final WriteBatch batch, final ByteBuffer key, final ByteBuffer value) throws RocksDBException
    {
        batch.put(keys, key, value);
    }

    /** Add the deletion of store key {@code key} (direct buffer, position..limit) to {@code batch}. */
    public void addDelete(final WriteBatch batch, final ByteBuffer key) throws RocksDBException
    {
        batch.delete(keys, key);
    }

    /** The replication state kept beside the data, written in the data's batches ({@link WriteRecords}). */
    public WriteRecords writeRecords()
    {
        return writeRecords;
    }

    /**
     * DEFAULT durability only: apply {@code batch} atomically with ONE WAL write (no sync), on the calling thread.
     * Durable against a process crash once this returns, like {@link #put(ByteBuffer, ByteBuffer)}.
     */
    public void write(final WriteBatch batch)
    {
        requireInline();
        try
        {
            db.write(walOptions, batch);
        }
        catch (final RocksDBException ex)
        {
            throw writeFailed("batch write failed", ex);
        }
    }

    /** DEFAULT durability only: delete the store key in the direct buffer (position..limit) without allocation. */
    public void delete(final ByteBuffer key)
    {
        requireInline();
        try
        {
            db.delete(keys, walOptions, key);
        }
        catch (final RocksDBException ex)
        {
            throw writeFailed("delete failed", ex);
        }
    }

    /**
     * FSYNC: wait until every write submitted before this call is in RocksDB (or failed), so that a decision read from
     * the store sees them all (conditional writes, counters, expiry changes). DEFAULT writes inline: true at once.
     *
     * @return false when {@code timeoutNanos} passed first or the committer stopped.
     */
    public boolean awaitSubmittedWrites(final long timeoutNanos)
    {
        return committer == null || committer.awaitApplied(timeoutNanos);
    }

    /** True when writes complete on the calling thread (DEFAULT); false when they go through group commit (FSYNC). */
    public boolean writesInline()
    {
        return committer == null;
    }

    /**
     * Write asynchronously. In FSYNC mode the write joins the next group commit and {@code callback} runs on the
     * committer thread; in DEFAULT mode it is written and the callback runs before this method returns.
     *
     * @return false when the committer queue is full or the store is closed (the callback will not run).
     */
    public boolean submitPut(final byte[] key, final byte[] value, final Object context, final WriteCallback callback)
    {
        return submit(StoreKeys.encode(key), value, context, callback);
    }

    /** {@link #submitPut} of a key hashed when it was decoded (its slot is not computed again). */
    public boolean submitPut(final HashedKey key, final byte[] value, final Object context,
        final WriteCallback callback)
    {
        return submit(StoreKeys.encode(key), value, context, callback);
    }

    /**
     * As {@link #submitPut(HashedKey, byte[], Object, WriteCallback)}, with the write's replication state: {@code kept}
     * (or null) is written in the same RocksDB write batch as the PUT (FSYNC: its group's one synced write). Under
     * DEFAULT, with records, call it on the thread that owns {@link #writeRecords} (the request thread): they are
     * encoded with its scratch buffers.
     */
    public boolean submitPut(final HashedKey key, final byte[] value, final KeptRecords kept, final Object context,
        final WriteCallback callback)
    {
        return submit(StoreKeys.encode(key), value, kept, context, callback);
    }

    /** As {@link #submitPut} for a deletion. */
    public boolean submitDelete(final byte[] key, final Object context, final WriteCallback callback)
    {
        return submit(StoreKeys.encode(key), null, context, callback);
    }

    /** As {@link #submitPut(HashedKey, byte[], Object, WriteCallback)} for a deletion. */
    public boolean submitDelete(final HashedKey key, final Object context, final WriteCallback callback)
    {
        return submit(StoreKeys.encode(key), null, context, callback);
    }

    /**
     * As {@link #submitDelete(HashedKey, Object, WriteCallback)}, with {@code kept} (or null) in the same write batch;
     * a write record that carries no answer of its own is recorded OK when the key existed, else NOT_FOUND.
     */
    public boolean submitDelete(final HashedKey key, final KeptRecords kept, final Object context,
        final WriteCallback callback)
    {
        return submit(StoreKeys.encode(key), null, kept, context, callback);
    }

    /**
     * Write an atomic multi-key write asynchronously, all or nothing. In FSYNC mode it is one unit of the group
     * committer: every entry in the write batch of ONE group commit (one synced WAL write with the writes around it),
     * completed once in submission order, on the committer thread; in DEFAULT mode it is written as one batch and the
     * callback runs before this method returns.
     *
     * @return false when the committer queue is full or the store is closed (the callback will not run).
     */
    public boolean submitBatch(final StoreBatch batch, final Object context, final WriteCallback callback)
    {
        return submitBatch(batch, null, context, callback);
    }

    /** As {@link #submitBatch(StoreBatch, Object, WriteCallback)}, with {@code kept} (or null) in the same batch. */
    public boolean submitBatch(final StoreBatch batch, final KeptRecords kept, final Object context,
        final WriteCallback callback)
    {
        if (closed)
        {
            return false;
        }
        if (committer != null)
        {
            return committer.submitBatch(batch, kept, context, callback);
        }
        StoreException failure = null;
        try (WriteBatch wb = new WriteBatch())
        {
            batch.addTo(wb, keys);
            if (kept != null)
            {
                kept.addTo(wb, writeRecords, Status.OK.code());
            }
            db.write(walOptions, wb);
        }
        catch (final RocksDBException ex)
        {
            failure = writeFailed("batch write failed", ex);
        }
        callback.onWriteComplete(context, failure);
        return true;
    }

    /**
     * Write records no write carries ({@link KeptRecords}: removals) asynchronously: FSYNC, in the next group commit,
     * in order with the writes around them; DEFAULT, at once (on the thread that owns {@link #writeRecords}). Their
     * outcome is not reported: records that could not be removed stay on disk (loaded again at the next start, as a
     * write's would be).
     *
     * @return false when the committer queue is full or the store is closed (nothing written).
     */
    public boolean submitRecords(final KeptRecords kept)
    {
        if (closed)
        {
            return false;
        }
        if (committer != null)
        {
            return committer.submitRecords(kept, null, IGNORED);
        }
        try (WriteBatch wb = new WriteBatch())
        {
            kept.addTo(wb, writeRecords, Status.OK.code());
            db.write(walOptions, wb);
        }
        catch (final RocksDBException ex)
        {
            writeFailed("records write failed", ex);
        }
        return true;
    }

    /** @param key the store key ({@link StoreKeys}). */
    private boolean submit(final byte[] key, final byte[] value, final Object context, final WriteCallback callback)
    {
        return submit(key, value, null, context, callback);
    }

    /** @param key the store key ({@link StoreKeys}); {@code kept} (or null): written in the same batch. */
    private boolean submit(final byte[] key, final byte[] value, final KeptRecords kept, final Object context,
        final WriteCallback callback)
    {
        if (closed)
        {
            return false;
        }
        if (committer != null)
        {
            return committer.submit(key, value, kept, context, callback);
        }
        StoreException failure = null;
        boolean existed = false;
        try (WriteBatch wb = kept == null ? null : new WriteBatch())
        {
            if (value == null)
            {
                existed = db.get(keys, readOptions, key) != null;
                if (wb == null)
                {
                    db.delete(keys, walOptions, key);
                }
                else
                {
                    wb.delete(keys, key);
                }
            }
            else if (wb == null)
            {
                db.put(keys, walOptions, key, value);
            }
            else
            {
                wb.put(keys, key, value);
            }
            if (wb != null)
            {
                kept.addTo(wb, writeRecords, (value != null || existed ? Status.OK : Status.NOT_FOUND).code());
                db.write(walOptions, wb);
            }
        }
        catch (final RocksDBException ex)
        {
            failure = writeFailed("write failed", ex);
        }
        if (value == null)
        {
            callback.onDeleteComplete(context, existed, failure);
        }
        else
        {
            callback.onWriteComplete(context, failure);
        }
        return true;
    }

    /** Visit every client key/value (its record's value), slot by slot; stops early when the visitor returns false. */
    public void forEach(final KeyValueVisitor visitor)
    {
        ensureOpen();
        try (RocksIterator it = db.newIterator(keys, readOptions))
        {
            for (it.seekToFirst(); it.isValid(); it.next())
            {
                if (!visitor.visit(StoreKeys.clientKey(it.key()), ValueRecord.value(it.value())))
                {
                    return;
                }
            }
            it.status();
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("iteration failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * As {@link #forEach} with each key's stored record ({@link io.rdmakv.protocol.layout.ValueRecord}: data version,
     * expiry, value) instead of its value (a restore writes them back).
     */
    public void forEachRecord(final KeyValueVisitor visitor)
    {
        ensureOpen();
        try (RocksIterator it = db.newIterator(keys, readOptions))
        {
            for (it.seekToFirst(); it.isValid(); it.next())
            {
                final byte[] record = it.value();
                try
                {
                    ValueRecord.check(record);
                }
                catch (final io.rdmakv.protocol.ProtocolException ex)
                {
                    throw new StoreException("the stored record of a key is damaged: " + ex.getMessage(), ex);
                }
                if (!visitor.visit(StoreKeys.clientKey(it.key()), record))
                {
                    return;
                }
            }
            it.status();
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("iteration failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * Visit at most {@code limit} store keys and their records after store key {@code after} (null: from the first),
     * in key order, block cache bypassed (a background pass such as the expiry sweep).
     *
     * @return the last store key visited (the next call's {@code after}), or null when the end was reached.
     */
    public byte[] visitRecords(final byte[] after, final int limit, final RecordVisitor visitor)
    {
        ensureOpen();
        try (ReadOptions options = new ReadOptions().setFillCache(false);
            RocksIterator it = db.newIterator(keys, options))
        {
            if (after == null)
            {
                it.seekToFirst();
            }
            else
            {
                it.seek(after);
                if (it.isValid() && java.util.Arrays.equals(it.key(), after))
                {
                    it.next();
                }
            }
            byte[] last = null;
            for (int n = 0; n < limit && it.isValid(); n++, it.next())
            {
                last = it.key();
                visitor.visit(last, it.value());
            }
            it.status();
            return it.isValid() ? last : null;
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("iteration failed: " + ex.getMessage(), ex);
        }
    }

    /** Visitor of {@link #visitRecords}: a store key and its stored record. */
    @FunctionalInterface
    public interface RecordVisitor
    {
        void visit(byte[] storeKey, byte[] record);
    }

    /** RocksDB's estimate of the number of keys ({@code rocksdb.estimate-num-keys}), or -1 when it has none. */
    public long estimatedKeyCount()
    {
        ensureOpen();
        try
        {
            return db.getLongProperty(keys, "rocksdb.estimate-num-keys");
        }
        catch (final RocksDBException ex)
        {
            return -1;
        }
    }

    /**
     * Start a pass over every key in key order that copies into {@link KeyValueBatch}es (warm-up); close it when
     * done. Unlike {@link #forEach} it allocates nothing per key and keeps the scan out of the block cache.
     */
    public StoreScan scan()
    {
        ensureOpen();
        return new StoreScan(db, keys);
    }

    /**
     * A bulk loader for a store no server is using: batches of about {@code batchBytes}, WAL off, flushed on close.
     */
    public BulkLoad bulkLoad(final long batchBytes)
    {
        ensureOpen();
        return new BulkLoad(this, db, keys, batchBytes);
    }

    /** Operations on the keys of one slot range at a time: copy, checkpoint, drop (replication, backup). */
    public RangeStore ranges()
    {
        ensureOpen();
        return new RangeStore(db, keys, walOptions);
    }

    /**
     * Bounded pages of keys (and values) from a point: clients' scans and range reads; {@code clockMillis} (the
     * node's clock) decides which records have expired.
     */
    public KeyPages keyPages(final java.util.function.LongSupplier clockMillis)
    {
        ensureOpen();
        return new KeyPages(db, keys, clockMillis);
    }

    /** The store as of now, to read page by page (backup); close it to release the snapshot. */
    public StoreSnapshot snapshot()
    {
        ensureOpen();
        return new StoreSnapshot(db, keys);
    }

    /** Synced WAL writes done by group commit (FSYNC); 0 in DEFAULT mode. */
    public long syncCount()
    {
        return committer == null ? 0 : committer.syncCount();
    }

    /**
     * A RocksDB integer property ({@code rocksdb.compaction-pending}, {@code rocksdb.is-write-stopped}, ...), read on
     * demand (metrics); -1 when RocksDB does not answer it (closed, unknown name).
     */
    public long longProperty(final String name)
    {
        try
        {
            return db.getLongProperty(name);
        }
        catch (final RocksDBException | RuntimeException ex)
        {
            return -1;
        }
    }

    /** Writes committed by group commit (FSYNC); 0 in DEFAULT mode. */
    public long groupCommittedWrites()
    {
        return committer == null ? 0 : committer.writeCount();
    }

    /** Flush memtables to SST files and sync the WAL (shutdown, tests). */
    public void flush()
    {
        ensureOpen();
        try (FlushOptions fo = new FlushOptions().setWaitForFlush(true))
        {
            db.flush(fo, families);
            db.syncWal();
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("flush failed: " + ex.getMessage(), ex);
        }
    }

    /** Commit what is queued, flush, sync and close. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        if (committer != null)
        {
            committer.close();
        }
        diskGuard.close();
        marker.stopPeriodic();
        try
        {
            flush();
        }
        catch (final StoreException ex)
        {
            LOG.warn("flush on close failed: {}", ex.getMessage());
        }
        marker.finish();
        synchronized (this)
        {
            closed = true;
            families.forEach(ColumnFamilyHandle::close);
            db.close();
        }
        diskGuard.closeListener();
        walOptions.close();
        readOptions.close();
        familyOptions.close();
        options.close();
        LOG.info("RocksDB at {} closed", directory.toAbsolutePath());
    }

    /** A failed write; a full disk is reported to the {@link DiskFullGuard}. */
    private StoreException writeFailed(final String what, final RocksDBException ex)
    {
        final StoreException failure = new StoreException(what + ": " + ex.getMessage(), ex);
        if (failure.noSpace())
        {
            diskGuard.onNoSpace(what + ": " + ex.getMessage());
        }
        return failure;
    }

    /** @param key a client key: the store key (its hash slot in front) is made here. */
    private void awaitCommit(final byte[] key, final byte[] value)
    {
        final CommitWait wait = new CommitWait();
        if (!submit(StoreKeys.encode(key), value, null, wait))
        {
            throw new StoreException(closed ? "store closed" : "write queue full");
        }
        wait.await();
    }

    private void requireInline()
    {
        ensureOpen();
        if (committer != null)
        {
            throw new IllegalStateException("synchronous direct-buffer writes are DEFAULT-only; FSYNC uses submitPut");
        }
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new StoreException("store closed");
        }
    }

    /** Visitor of {@link #forEach}. */
    @FunctionalInterface
    public interface KeyValueVisitor
    {
        /** @return false to stop. */
        boolean visit(byte[] key, byte[] value);
    }
}
