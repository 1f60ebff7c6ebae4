package io.rdmakv.server.store;

import io.rdmakv.protocol.KeyGlob;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

import java.util.ArrayList;
import java.util.List;

/**
 * Bounded pages of keys (and values) in store order, from a point (the key scan and the range and prefix reads of
 * clients, {@code KEY_SCAN}): one RocksDB iterator per page between the page's bounds, so a page is read as of one
 * point in time, and a scan resumes after the last key a page examined. Keys of a hash slot sort together (the store
 * key starts with it, {@link StoreKeys}), so a page of one hash slot is that slot's keys in byte order. Request thread.
 */
public final class KeyPages
{
    private final RocksDB db;
    private final ColumnFamilyHandle keys;
    private final StoredValues stored;

    KeyPages(final RocksDB db, final ColumnFamilyHandle keys, final java.util.function.LongSupplier clockMillis)
    {
        this.db = db;
        this.keys = keys;
        this.stored = new StoredValues(clockMillis);
    }

    /**
     * What a page holds: the matching keys (and values) in order; the resume point (every key up to and including
     * {@code resumeKey} of hash slot {@code resumeSlot} was examined; an empty resume key: none of that hash slot);
     * {@code exhausted} when no key was left before the page's upper bound (the resume point is then past it).
     */
    public record Page(List<byte[]> keys, List<byte[]> values, int resumeSlot, byte[] resumeKey, boolean exhausted)
    {
    }

    /**
     * Read a page of hash slots {@code firstSlot..lastSlot}.
     *
     * @param from          a client key of {@code firstSlot} to start after (at, when {@code fromInclusive}); empty:
     *                      from the hash slot's first key.
     * @param to            a client key of {@code lastSlot} to stop before; null or empty: to the end of that slot.
     * @param match         keys kept.
     * @param count         matching keys at most.
     * @param withValues    whether values are read into the page.
     * @param maxExamined   keys examined at most (matching or not), at least 1: the work one page may do.
     * @param capacityBytes how many bytes of keys (and values) the page may hold, {@code entryOverhead} per entry
     *                      more, and the resume key besides.
     * @throws StoreException when RocksDB fails, or one entry alone does not fit the page.
     */
    public Page read(final int firstSlot, final int lastSlot, final byte[] from, final boolean fromInclusive,
        final byte[] to, final KeyGlob match, final int count, final boolean withValues, final int maxExamined,
        final int capacityBytes, final int entryOverhead)
    {
        final byte[] upperBound = to == null || to.length == 0 ? StoreKeys.lowerBound(lastSlot + 1) :
            StoreKeys.encode(lastSlot, to);
        final List<byte[]> found = new ArrayList<>();
        final List<byte[]> values = withValues ? new ArrayList<>() : null;
        int resumeSlot = firstSlot;
        byte[] resumeKey = from;
        int used = 0;
        int examined = 0;
        try (Slice upper = new Slice(upperBound);
            ReadOptions options = new ReadOptions().setFillCache(false).setIterateUpperBound(upper);
            RocksIterator it = db.newIterator(keys, options))
        {
            final byte[] start = StoreKeys.encode(firstSlot, from);
            if (fromInclusive || from.length == 0)
            {
                it.seek(start);
            }
            else
            {
                StoreKeys.seekAfter(it, start);
            }
            for (; it.isValid(); it.next())
            {
                if (examined >= maxExamined || found.size() >= count)
                {
                    return new Page(found, values, resumeSlot, resumeKey, false);
                }
                final byte[] storeKey = it.key();
                final byte[] key = StoreKeys.clientKey(storeKey);
                if (used + key.length > capacityBytes)
                {
                    return new Page(found, values, resumeSlot, resumeKey, false);
                }
                if (stored.visible(it) && match.matches(key))
                {
                    final byte[] value = withValues ? StoredValues.value(it) : null;
                    final int length = entryOverhead + key.length + (withValues ? value.length : 0);
                    if (used + length + key.length > capacityBytes)
                    {
                        if (found.isEmpty())
                        {
                            throw new StoreException("an entry of " + length + " bytes does not fit a page of " +
                                capacityBytes);
                        }
                        return new Page(found, values, resumeSlot, resumeKey, false);
                    }
                    used += length;
                    found.add(key);
                    if (withValues)
                    {
                        values.add(value);
                    }
                }
                examined++;
                resumeSlot = StoreKeys.hashSlotOfStoreKey(storeKey);
                resumeKey = key;
            }
            it.status();
            return new Page(found, values, lastSlot + 1, new byte[0], true);
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("key page failed: " + ex.getMessage(), ex);
        }
    }
}
