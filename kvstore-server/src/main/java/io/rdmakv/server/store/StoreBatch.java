package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.HashedKey;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.util.Arrays;

/**
 * An atomic multi-key write for {@link RocksStore#submitBatch}: PUTs of records ({@link
 * io.rdmakv.protocol.layout.ValueRecord}) and DELETEs, applied in entry order (a key given twice: the later entry
 * wins) within ONE RocksDB write batch. Under FSYNC it is one unit of the {@link GroupCommitter}'s queue, so it joins
 * one group commit whole (its entries in that group's write batch, synced with it; never split across two), takes one
 * place in the queue's bound, and completes once. Filled by one thread, then handed over (the committer's queue is the
 * happens-before edge) and not touched again.
 */
public final class StoreBatch
{
    /** {@link #lastWriteOf}: no entry writes the key. */
    static final int NOT_WRITTEN = -1;

    private final byte[][] keys;
    /** A PUT's record; {@code null} for a DELETE. */
    private final byte[][] records;
    private int count;
    private int failWhileAdding = -1;

    /** @param capacity entries it can take. */
    public StoreBatch(final int capacity)
    {
        keys = new byte[capacity][];
        records = new byte[capacity][];
    }

    /** Add the PUT of {@code key} (hashed when it was decoded) to {@code record}, which the batch keeps. */
    public StoreBatch put(final HashedKey key, final byte[] record)
    {
        return add(StoreKeys.encode(key), record);
    }

    /** Add the PUT of client key {@code key} to {@code record}, which the batch keeps. */
    public StoreBatch put(final byte[] key, final byte[] record)
    {
        return add(StoreKeys.encode(key), record);
    }

    /** Add the deletion of {@code key} (hashed when it was decoded). */
    public StoreBatch delete(final HashedKey key)
    {
        return add(StoreKeys.encode(key), null);
    }

    /** Add the deletion of client key {@code key}. */
    public StoreBatch delete(final byte[] key)
    {
        return add(StoreKeys.encode(key), null);
    }

    /** Entries added. */
    public int count()
    {
        return count;
    }

    /**
     * Tests: writing this batch fails with a RocksDB error while its entry {@code entry} is being added, before
     * anything is written, as a failed WAL write would: the group commit holding it fails whole.
     */
    public StoreBatch failWhileAdding(final int entry)
    {
        failWhileAdding = entry;
        return this;
    }

    /** Add every entry, in order, to {@code batch} in the family {@code family}. */
    void addTo(final WriteBatch batch, final ColumnFamilyHandle family) throws RocksDBException
    {
        for (int i = 0; i < count; i++)
        {
            if (i == failWhileAdding)
            {
                throw new RocksDBException("injected failure before batch entry " + i);
            }
            if (records[i] == null)
            {
                batch.delete(family, keys[i]);
            }
            else
            {
                batch.put(family, keys[i], records[i]);
            }
        }
    }

    /** The index of the last entry writing store key {@code key}, or {@link #NOT_WRITTEN}. */
    int lastWriteOf(final byte[] key)
    {
        for (int i = count - 1; i >= 0; i--)
        {
            if (Arrays.equals(keys[i], key))
            {
                return i;
            }
        }
        return NOT_WRITTEN;
    }

    /** Whether entry {@code i} is a PUT. */
    boolean isPut(final int i)
    {
        return records[i] != null;
    }

    private StoreBatch add(final byte[] storeKey, final byte[] record)
    {
        if (count == keys.length)
        {
            throw new IllegalStateException("batch full: " + keys.length + " entries");
        }
        keys[count] = storeKey;
        records[count] = record;
        count++;
        return this;
    }
}
