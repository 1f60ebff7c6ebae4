package io.rdmakv.server.pool;

import io.rdmakv.pool.ArenaPartitions;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.IndexBucketFlyweight;
import io.rdmakv.protocol.layout.IndexEntry;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.layout.PoolHeaderFlyweight;
import io.rdmakv.server.cluster.OwnershipPublisher;
import io.rdmakv.protocol.layout.ValueExtentFlyweight;
import io.rdmakv.protocol.layout.ValueRecord;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The server's side of the on-pool layout: the one writer that places values into the pool so that clients can read
 * them one-sided. <b>Single writer</b>: every method must be called from the same thread (the server's request
 * thread), and that thread is the only one that stores into the index, the extents and the header; clients only
 * read, remotely. Which entries make room when the pool is full is {@link PoolEviction}'s choice; this class does
 * every store, evictions included.
 *
 * <pre>
 *   pool offset 0        indexOffset                          extentsOffset
 *   | header (4 KiB)     | bucket 0 | bucket 1 | ... (64 B each) | extents (64 B aligned; ExtentAllocator) ... |
 *                           8 entries: fp(16) | len/64 (15) | off/64 (33)
 *                                                        extent: crc | state | klen | flags | vlen | ver | key | value
 *
 *   key --KeyHash--> h --> primary bucket, secondary bucket (two-choice), fingerprint
 * </pre>
 *
 * <p>Publication protocol (what makes a one-sided GET safe against this writer):
 * <ol>
 *   <li>insert/update: allocate a FRESH extent, write header, key and value, CRC, then its state word LIVE; then
 *       publish the entry with ONE release-ordered 8-byte store (into the key's existing entry on update, else an empty
 *       entry of the emptier of its two buckets). The old extent of an update is retired to the reclaimer: it stays
 *       untouched for the grace period, so a reader that followed the old entry still verifies a value that was
 *       committed.</li>
 *   <li>delete: ordered store of 0 into the entry, then retire the extent.</li>
 *   <li>eviction (pool full, or both buckets full): clear the header's COMPLETE flag FIRST (release store), then
 *       replace/clear the victim's entry and retire its extent. A reader therefore never sees a miss while the header
 *       still claims completeness for a key evicted by this writer.</li>
 * </ol>
 * Whenever a published extent is superseded (update, delete, eviction, a put that could not be cached), its state
 * word is set RETIRED (an ordered store) BEFORE the entry store that supersedes it, and the request is answered
 * after both; every entry store that replaces or clears an entry goes through {@link #supersede}, which keeps
 * that order. A client that skips the index and reads a remembered extent alone (its location
 * cache) therefore sees RETIRED once the replacement can be seen, and LIVE only if it read the word before that:
 * see {@link ValueExtentFlyweight}.
 * Extent offsets from the allocator are arena offsets; the arena IS the pool, so they are pool offsets too.
 * No allocation per operation.
 */
public final class PoolIndex
{
    /** {@link #put}: the value is published in the pool. */
    public static final int STORED = 0;
    /** {@link #put}: no room (pool or bucket pair full); the key is now absent from the pool and COMPLETE is clear. */
    public static final int NOT_CACHED = 1;

    /** {@link #copyValue}: the key is not in the pool. */
    public static final int NOT_FOUND = -1;
    /** {@link #copyValue}: the value does not fit the destination. */
    public static final int DESTINATION_TOO_SMALL = -2;

    private static final int ENTRIES_PER_BUCKET = IndexBucketFlyweight.ENTRY_COUNT;
    /** Fill byte of {@link #scribbleRetired} extents: a key length of 0xDBDB is beyond any the format allows. */
    private static final java.nio.ByteOrder ORDER = java.nio.ByteOrder.LITTLE_ENDIAN;
    private static final byte SCRIBBLE = (byte)0xDB;

    private final ArenaPartitions partitions;
    private final PoolGeometry geometry;
    private final ExtentAllocator allocator;
    private final PoolHeaderFlyweight header = new PoolHeaderFlyweight();
    private final IndexBucketFlyweight bucket = new IndexBucketFlyweight();
    private final ValueExtentFlyweight extent = new ValueExtentFlyweight();
    private final UnsafeBuffer keyView = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer valueView = new UnsafeBuffer(new byte[0]);
    /** The keys this class hashes itself (arrays, warm-up); a request's key comes hashed. */
    private final HashedKey ownKey = new HashedKey();
    private final long bucketMask;
    private final PoolEviction eviction;

    private long version;
    private long lastEntry;
    private long copiedDataVersion;
    private long copiedExpiryMillis;
    private long keyCount;
    private boolean complete;
    private long notCached;
    private long published;
    private boolean scribbleRetired;

    /**
     * Initialise the pool header (magic, version, geometry, epoch, node id, COMPLETE clear) and an empty index over
     * {@code partitions}. The extents range of {@code geometry} must be what {@code allocator} carves from.
     *
     * @param epoch bumped on every start so clients notice a restarted server; also the high bits of versions.
     */
    public PoolIndex(
        final ArenaPartitions partitions, final PoolGeometry geometry, final ExtentAllocator allocator,
        final int nodeId, final long epoch)
    {
        if (partitions.size() < geometry.poolSize())
        {
            throw new IllegalArgumentException("arena of " + partitions.size() + " bytes is smaller than the pool " +
                "geometry " + geometry);
        }
        if (allocator.rangeStart() < geometry.extentsOffset() ||
            allocator.rangeStart() + allocator.rangeLength() > geometry.extentsOffset() + geometry.extentsLength())
        {
            throw new IllegalArgumentException("allocator range is outside the geometry's extents range");
        }
        if (geometry.bucketCount() * ENTRIES_PER_BUCKET > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("index too large: " + geometry.bucketCount() + " buckets");
        }
        this.partitions = partitions;
        this.geometry = geometry;
        this.allocator = allocator;
        this.bucketMask = geometry.bucketCount() - 1;
        this.version = epoch << 32;

        final UnsafeBuffer first = partitions.partition(0);
        // Zero the index: a fresh anonymous mapping is zero already, but a reused arena may not be. One memset per
        // partition the index spans (a per-bucket loop costs ~50 ms for a million buckets at start-up).
        final long indexEnd = geometry.indexOffset() + geometry.bucketCount() * IndexBucketFlyweight.BUCKET_LENGTH;
        for (long off = geometry.indexOffset(); off < indexEnd; )
        {
            final int at = partitions.partitionOffset(off);
            final int length = (int)Math.min(indexEnd - off, (long)partitions.partitionSize() - at);
            partitions.bufferFor(off).setMemory(at, length, (byte)0);
            off += length;
        }
        // Nothing is served one-sided until the node publishes its slot ownership (NOT_OWNER everywhere).
        OwnershipPublisher.clear(partitions);
        header.wrap(first, 0).initialise(geometry, nodeId, epoch);
        header.complete(false);
        this.eviction = new PoolEviction(this, geometry, allocator);
    }

    /**
     * Test and debug setting ({@code pool.scribbleRetired}): overwrite every superseded extent the moment it is
     * retired, instead of leaving it intact for the grace period. A one-sided reader that followed the old entry then
     * never finds the old value there but bytes that fail its CRC (or length) check, as if the extent had been reused
     * at once by a writer of another key: the race that the reader's verification exists for, made as wide as it can
     * be, so an end-to-end test can prove the check is exercised even where reads and writes are too slow to collide
     * on their own (SoftRoCE under emulation). Costs one write of the extent per update or delete. Never for production:
     * it turns the grace period's stale-but-intact reads into retries.
     */
    public PoolIndex scribbleRetired(final boolean scribble)
    {
        this.scribbleRetired = scribble;
        return this;
    }

    public PoolGeometry geometry()
    {
        return geometry;
    }

    /**
     * Store {@code key -> value} in the pool, evicting when needed; the key's buckets and fingerprint come from its
     * hash, computed when the request was decoded.
     *
     * @return {@link #STORED} or {@link #NOT_CACHED}.
     */
    public int put(final HashedKey key, final DirectBuffer value, final int valueOffset, final int valueLength)
    {
        return put(key, value, valueOffset, valueLength, true);
    }

    /** {@link #put} from arrays (warm-up, promotion from RocksDB). */
    public int put(final byte[] key, final byte[] value, final boolean mayEvict)
    {
        keyView.wrap(key);
        valueView.wrap(value);
        return put(ownKey.wrap(keyView, 0, key.length), valueView, 0, value.length, mayEvict);
    }

    /** {@link #put} of a key not hashed yet (warm-up): hashed here. */
    public int put(
        final DirectBuffer key, final int keyOffset, final int keyLength,
        final DirectBuffer value, final int valueOffset, final int valueLength,
        final boolean mayEvict)
    {
        return put(ownKey.wrap(key, keyOffset, keyLength), value, valueOffset, valueLength, mayEvict);
    }

    /** {@link #put} of a value with data version 0 and no expiry (tools and tests; the node stores records). */
    public int put(final HashedKey hashedKey, final DirectBuffer value, final int valueOffset, final int valueLength,
        final boolean mayEvict)
    {
        return put(hashedKey, value, valueOffset, valueLength, 0, 0, mayEvict);
    }

    /**
     * Store a key's durable record ({@link ValueRecord}: data version, expiry, value; as RocksDB holds it and a write
     * path reports it): the extent carries the record's data version and expiry beside the value.
     *
     * @return {@link #STORED} or {@link #NOT_CACHED}.
     * @throws io.rdmakv.protocol.ProtocolException when the bytes are not a record of this format.
     */
    public int putRecord(final HashedKey hashedKey, final DirectBuffer record, final int recordOffset,
        final int recordLength, final boolean mayEvict)
    {
        ValueRecord.check(record, recordOffset, recordLength);
        return put(hashedKey, record, recordOffset + ValueRecord.HEADER_LENGTH,
            recordLength - ValueRecord.HEADER_LENGTH, ValueRecord.dataVersion(record, recordOffset),
            ValueRecord.expiryMillis(record, recordOffset), mayEvict);
    }

    /** {@link #putRecord} of a key not hashed yet (warm-up): hashed here. */
    public int putRecord(
        final DirectBuffer key, final int keyOffset, final int keyLength,
        final DirectBuffer record, final int recordOffset, final int recordLength,
        final boolean mayEvict)
    {
        return putRecord(ownKey.wrap(key, keyOffset, keyLength), record, recordOffset, recordLength, mayEvict);
    }

    /**
     * Store {@code key -> value}. With {@code mayEvict} false (warm-up) nothing already in the pool is displaced.
     *
     * @param dataVersion  the value's data version (its record's), carried by the extent.
     * @param expiryMillis when the value expires (ms since the epoch, 0 = never), carried by the extent.
     * @return {@link #STORED} or {@link #NOT_CACHED}.
     * @throws io.rdmakv.protocol.ProtocolException if key or value exceed what an extent can hold (callers check
     *                                              limits first).
     */
    public int put(final HashedKey hashedKey, final DirectBuffer value, final int valueOffset, final int valueLength,
        final long dataVersion, final long expiryMillis, final boolean mayEvict)
    {
        final DirectBuffer key = hashedKey.buffer();
        final int keyOffset = hashedKey.offset();
        final int keyLength = hashedKey.length();
        final int required = ValueExtentFlyweight.requiredLength(keyLength, valueLength);
        final long hash = hashedKey.hash();
        final int fingerprint = KeyHash.fingerprint(hash);
        final long primary = KeyHash.primaryBucket(hash, geometry.bucketCount());
        final long secondary = KeyHash.secondaryBucket(hash, geometry.bucketCount());
        final long existing = findKey(hash, key, keyOffset, keyLength);

        long offset = allocator.allocate(required);
        if (offset == ExtentAllocator.FULL && mayEvict && eviction.mayEvictFor(required))
        {
            markIncomplete();
            eviction.evictForSpace(required, existing);
            offset = allocator.allocate(required);
        }
        if (offset < 0)
        {
            // No room: the pool must not keep serving an older value of a key that was just overwritten.
            markIncomplete();
            if (existing >= 0)
            {
                clearEntry(existing);
            }
            notCached++;
            return NOT_CACHED;
        }

        final UnsafeBuffer extentBuffer = partitions.bufferFor(offset);
        extent.wrap(extentBuffer, partitions.partitionOffset(offset), required)
            .write(key, keyOffset, keyLength, value, valueOffset, valueLength, ++version, dataVersion, expiryMillis);
        final long entry = IndexEntry.encode(fingerprint, offset, required);

        if (existing >= 0)
        {
            supersede(existing, entry);
            lastEntry = entry;
            return STORED;
        }

        long target = emptyEntry(primary, secondary);
        if (target < 0)
        {
            if (!mayEvict)
            {
                allocator.free(offset, required);
                markIncomplete();
                notCached++;
                return NOT_CACHED;
            }
            target = eviction.victimIn(primary, secondary);
            markIncomplete();
            supersede(target, entry);
            lastEntry = entry;
            return STORED;
        }
        publish(target, entry);
        keyCount++;
        header.keyCount(keyCount);
        lastEntry = entry;
        return STORED;
    }

    /** True when {@code key} has a published entry in the pool (its key bytes verified, not just the fingerprint). */
    public boolean contains(final HashedKey key)
    {
        return findKey(key) >= 0;
    }

    /** Remove {@code key} from the pool; true if it was there. */
    public boolean remove(final HashedKey key)
    {
        final long at = findKey(key);
        if (at < 0)
        {
            return false;
        }
        clearEntry(at);
        return true;
    }

    /** {@link #remove(HashedKey)} of an array key (hashed here). */
    public boolean remove(final byte[] key)
    {
        keyView.wrap(key);
        return remove(ownKey.wrap(keyView, 0, key.length));
    }

    /**
     * Copy the value of {@code key} into {@code destination} (RPC GET served from the pool).
     *
     * @return the value length, {@link #NOT_FOUND} or {@link #DESTINATION_TOO_SMALL}.
     */
    public int copyValue(final HashedKey key, final MutableDirectBuffer destination, final int destinationOffset,
        final int destinationCapacity)
    {
        final long at = findKey(key);
        if (at < 0)
        {
            return NOT_FOUND;
        }
        eviction.touch(at);
        final long entry = entryValue(at);
        wrapExtent(entry);
        final int length = extent.valueLength();
        if (length > destinationCapacity)
        {
            return DESTINATION_TOO_SMALL;
        }
        destination.putBytes(destinationOffset, extent.buffer(), extent.valueIndex(), length);
        copiedDataVersion = extent.dataVersion();
        copiedExpiryMillis = extent.expiryMillis();
        return length;
    }

    /** The data version of the value the last successful {@link #copyValue} copied. */
    public long copiedDataVersion()
    {
        return copiedDataVersion;
    }

    /** The expiry (ms since the epoch, 0 = none) of the value the last successful {@link #copyValue} copied. */
    public long copiedExpiryMillis()
    {
        return copiedExpiryMillis;
    }

    /** Set the header's COMPLETE flag (warm-up loaded every key). */
    public void markComplete()
    {
        complete = true;
        header.complete(true);
    }

    /** Clear COMPLETE (some key of the node is not in the pool). Idempotent. */
    public void markIncomplete()
    {
        if (complete)
        {
            complete = false;
            header.complete(false);
        }
    }

    public boolean isComplete()
    {
        return complete;
    }

    /** Release extents whose grace period has passed (call from the writer's duty cycle). */
    public int reclaim(final long nowNanos)
    {
        return allocator.poll(nowNanos);
    }

    /** The version written into the most recent extent (echoed in PUT responses). */
    public long lastVersion()
    {
        return version;
    }

    /** The index entry published by the most recent {@link #STORED} put (sent back in its PUT response). */
    public long lastEntry()
    {
        return lastEntry;
    }

    public long keyCount()
    {
        return keyCount;
    }

    /** Entries displaced to make room. */
    public long evictions()
    {
        return eviction.evictions();
    }

    /** Puts that could not be placed in the pool. */
    public long notCachedCount()
    {
        return notCached;
    }

    /** Entry stores performed (inserts, updates, evictions and deletes): each one ordered 8-byte store. */
    public long publishedCount()
    {
        return published;
    }

    public ExtentAllocator allocator()
    {
        return allocator;
    }

    private long findKey(final HashedKey key)
    {
        return findKey(key.hash(), key.buffer(), key.offset(), key.length());
    }

    /** The entry of {@code key} (hashed to {@code hash}) in its primary bucket, else its secondary, or -1. */
    private long findKey(final long hash, final DirectBuffer key, final int keyOffset, final int keyLength)
    {
        final int fingerprint = KeyHash.fingerprint(hash);
        final long at = findEntry(
            KeyHash.primaryBucket(hash, geometry.bucketCount()), fingerprint, key, keyOffset, keyLength);
        return at >= 0 ? at : findEntry(
            KeyHash.secondaryBucket(hash, geometry.bucketCount()), fingerprint, key, keyOffset, keyLength);
    }

    private long findEntry(
        final long bucketIndex, final int fingerprint, final DirectBuffer key, final int keyOffset, final int keyLength)
    {
        wrapBucket(bucketIndex);
        for (int i = bucket.find(fingerprint, 0); i >= 0; i = bucket.find(fingerprint, i + 1))
        {
            final long entry = bucket.entry(i);
            if (keyEquals(entry, key, keyOffset, keyLength))
            {
                return (bucketIndex & bucketMask) * ENTRIES_PER_BUCKET + i;
            }
        }
        return -1;
    }

    private boolean keyEquals(final long entry, final DirectBuffer key, final int keyOffset, final int keyLength)
    {
        wrapExtent(entry);
        if (extent.keyLength() != keyLength)
        {
            return false;
        }
        final DirectBuffer b = extent.buffer();
        final int at = extent.keyIndex();
        int i = 0;
        for (; i + 8 <= keyLength; i += 8)
        {
            if (b.getLong(at + i) != key.getLong(keyOffset + i))
            {
                return false;
            }
        }
        for (; i < keyLength; i++)
        {
            if (b.getByte(at + i) != key.getByte(keyOffset + i))
            {
                return false;
            }
        }
        return true;
    }

    /** An empty entry in the emptier of the two buckets (two-choice), or -1 when both are full. */
    private long emptyEntry(final long primary, final long secondary)
    {
        wrapBucket(primary);
        final int freeInPrimary = ENTRIES_PER_BUCKET - bucket.occupancy();
        final int firstEmptyPrimary = bucket.findEmpty();
        wrapBucket(secondary);
        final int freeInSecondary = ENTRIES_PER_BUCKET - bucket.occupancy();
        if (freeInSecondary > freeInPrimary)
        {
            return (secondary & bucketMask) * ENTRIES_PER_BUCKET + bucket.findEmpty();
        }
        if (firstEmptyPrimary >= 0)
        {
            return (primary & bucketMask) * ENTRIES_PER_BUCKET + firstEmptyPrimary;
        }
        return -1;
    }

    /**
     * The entry that points at the live extent at {@code offset} ({@code heldBytes} long): the extent names its key,
     * whose two buckets hold that entry.
     *
     * @throws IllegalStateException if no entry points at it (the index and the allocator disagree).
     */
    long entryOfExtent(final long offset, final int heldBytes)
    {
        final UnsafeBuffer buffer = partitions.bufferFor(offset);
        extent.wrap(buffer, partitions.partitionOffset(offset), heldBytes);
        final long hash = KeyHash.hash(buffer, extent.keyIndex(), extent.keyLength());
        final int fingerprint = KeyHash.fingerprint(hash);
        long at = entryPointingAt(KeyHash.primaryBucket(hash, geometry.bucketCount()), fingerprint, offset);
        if (at < 0)
        {
            at = entryPointingAt(KeyHash.secondaryBucket(hash, geometry.bucketCount()), fingerprint, offset);
        }
        if (at < 0)
        {
            throw new IllegalStateException("pool index corrupt: the live extent at " + offset + " has no slot");
        }
        return at;
    }

    /** The entry stored at position {@code at} of the index (bucket {@code at / 8}, entry {@code at % 8}). */
    long entryValue(final long at)
    {
        wrapBucket(at / ENTRIES_PER_BUCKET);
        return bucket.entry((int)(at % ENTRIES_PER_BUCKET));
    }

    /** The entry of bucket {@code bucketIndex} with {@code fingerprint} that points at {@code offset}, or -1. */
    private long entryPointingAt(final long bucketIndex, final int fingerprint, final long offset)
    {
        wrapBucket(bucketIndex);
        for (int i = bucket.find(fingerprint, 0); i >= 0; i = bucket.find(fingerprint, i + 1))
        {
            if (IndexEntry.extentOffset(bucket.entry(i)) == offset)
            {
                return (bucketIndex & bucketMask) * ENTRIES_PER_BUCKET + i;
            }
        }
        return -1;
    }

    /**
     * Clear the published entry {@code at} (delete, a put that could not be placed, {@link PoolEviction}) through
     * {@link #supersede}, so its extent is RETIRED before the entry store. An eviction clears COMPLETE first.
     */
    void clearEntry(final long at)
    {
        supersede(at, IndexEntry.EMPTY);
        keyCount--;
        header.keyCount(keyCount);
    }

    /**
     * Replace the published entry at {@code at} by {@code entry} (EMPTY to clear it): mark the old extent RETIRED,
     * then publish, then hand the old extent to the reclaimer. <b>RETIRED before publish</b>: the state word's
     * ordered store precedes the entry's, so a client reading a remembered extent alone (its location cache) sees
     * RETIRED once the replacement can be seen. Every store that replaces or clears a published entry (update,
     * delete, eviction, a put that could not be placed) comes through here; only a store into an empty entry
     * ({@link #publish} of an insert) does not.
     */
    private void supersede(final long at, final long entry)
    {
        final long old = entryValue(at);
        wrapExtent(old);
        extent.retire();
        publish(at, entry);
        retire(old);
    }

    private void retire(final long entry)
    {
        final int status = allocator.free(IndexEntry.extentOffset(entry), IndexEntry.extentLength(entry));
        if (status != ExtentAllocator.FREED)
        {
            throw new IllegalStateException("pool index corrupt: freeing " + IndexEntry.toString(entry) +
                " returned " + status);
        }
        if (scribbleRetired)
        {
            scribble(entry);
        }
    }

    /**
     * Overwrite a just-retired extent as a hostile writer reusing it at once would: the CRC inverted, everything it
     * covers filled with {@link #SCRIBBLE}. The state word (RETIRED) is left, so a cached reader still sees the mark.
     */
    private void scribble(final long entry)
    {
        final long off = IndexEntry.extentOffset(entry);
        final UnsafeBuffer buffer = partitions.bufferFor(off);
        final int at = partitions.partitionOffset(off);
        buffer.putInt(at + ValueExtentFlyweight.CRC_OFFSET,
            ~buffer.getInt(at + ValueExtentFlyweight.CRC_OFFSET, ORDER), ORDER);
        buffer.setMemory(at + ValueExtentFlyweight.CRC_START,
            IndexEntry.extentLength(entry) - ValueExtentFlyweight.CRC_START, SCRIBBLE);
    }

    private void publish(final long at, final long entry)
    {
        wrapBucket(at / ENTRIES_PER_BUCKET);
        bucket.publish((int)(at % ENTRIES_PER_BUCKET), entry);
        eviction.onPublish(at, entry);
        published++;
    }

    private void wrapBucket(final long bucketIndex)
    {
        final long off = geometry.bucketOffset(bucketIndex);
        bucket.wrap(partitions.bufferFor(off), partitions.partitionOffset(off));
    }

    private void wrapExtent(final long entry)
    {
        final long off = IndexEntry.extentOffset(entry);
        extent.wrap(partitions.bufferFor(off), partitions.partitionOffset(off), IndexEntry.extentLength(entry));
    }
}
