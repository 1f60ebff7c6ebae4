package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.ValueRecord;
import org.agrona.MutableDirectBuffer;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;

/**
 * The store as of one point in time (a RocksDB snapshot), read page by page in store-key order (backup). Close it to
 * release the snapshot. One thread at a time.
 *
 * <pre>
 *   page entry: | store key length (u16 LE) | record length (u32 LE) | store key | record |
 * </pre>
 * A record is the key's stored {@link ValueRecord} as is (data version, expiry, value), so a backup keeps both.
 */
public final class StoreSnapshot implements AutoCloseable
{
    /** An entry's header in a page. */
    public static final int ENTRY_HEADER_LENGTH = 6;

    private final RocksDB db;
    private final ColumnFamilyHandle keys;
    private final Snapshot snapshot;
    private boolean closed;

    StoreSnapshot(final RocksDB db, final ColumnFamilyHandle keys)
    {
        this.db = db;
        this.keys = keys;
        this.snapshot = db.getSnapshot();
    }

    /**
     * Copy entries of slots {@code firstSlot..lastSlot} after store key {@code after} (null: from the first) into
     * {@code page} at {@code offset}, as many whole entries as fit in {@code capacity} bytes.
     *
     * @return the bytes written; 0 when no entry is left.
     * @throws StoreException when an entry alone does not fit, or RocksDB fails.
     */
    public int page(final int firstSlot, final int lastSlot, final byte[] after, final MutableDirectBuffer page,
        final int offset, final int capacity)
    {
        int used = 0;
        try (Slice upper = new Slice(StoreKeys.lowerBound(lastSlot + 1));
            ReadOptions options = new ReadOptions().setSnapshot(snapshot).setFillCache(false)
                .setIterateUpperBound(upper);
            RocksIterator it = db.newIterator(keys, options))
        {
            if (after == null)
            {
                it.seek(StoreKeys.lowerBound(firstSlot));
            }
            else
            {
                StoreKeys.seekAfter(it, after);
            }
            for (; it.isValid(); it.next())
            {
                final byte[] key = it.key();
                // The record as stored: a backup keeps the key's data version and expiry, and a restore writes
                // them back (an expired record is left out by the tool, whose clock decides at that moment).
                final byte[] value = it.value();
                ValueRecord.check(value);
                final int length = ENTRY_HEADER_LENGTH + key.length + value.length;
                if (used + length > capacity)
                {
                    if (used == 0)
                    {
                        throw new StoreException("an entry of " + length + " bytes does not fit a page of " + capacity);
                    }
                    break;
                }
                page.putShort(offset + used, (short)key.length, java.nio.ByteOrder.LITTLE_ENDIAN);
                page.putInt(offset + used + 2, value.length, java.nio.ByteOrder.LITTLE_ENDIAN);
                page.putBytes(offset + used + ENTRY_HEADER_LENGTH, key);
                page.putBytes(offset + used + ENTRY_HEADER_LENGTH + key.length, value);
                used += length;
            }
            it.status();
            return used;
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("snapshot page failed: " + ex.getMessage(), ex);
        }
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            db.releaseSnapshot(snapshot);
        }
    }
}
